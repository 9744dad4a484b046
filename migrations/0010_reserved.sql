-- 0010 is reserved for the migration another branch adds (the numbering has no gaps): this placeholder,
-- which changes nothing, is replaced by that file when the branches meet.
SELECT 1;
