#!/bin/sh
# Entrypoint of the scale-out profile's standby (docker-compose.yml). On the first start, while there is
# no data directory, it clones the primary named by PRIMARY_URL with pg_basebackup -R, which also writes
# standby.signal and primary_conninfo: every later start streams from the primary. Then it hands over to
# the image's own entrypoint, which finds a data directory and starts postgres on it.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # Cloned beside, then renamed: a clone cut short (container killed, primary lost) leaves no half copy
  # that the next start would take for a finished one. Whatever is there unfinished is discarded: a
  # standby holds nothing its primary lacks.
  partial="$PGDATA.partial"
  rm -rf "$partial" "$PGDATA"
  gosu postgres pg_basebackup --dbname="$PRIMARY_URL" --pgdata="$partial" \
    --write-recovery-conf --wal-method=stream --checkpoint=fast
  mv "$partial" "$PGDATA"
fi
exec docker-entrypoint.sh "$@"
