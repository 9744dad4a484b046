#!/bin/sh
# The scale-out profile's primary (docker-compose.yml), first start only: the postgres image runs the files
# of /docker-entrypoint-initdb.d once, when it creates the database. Creates the role the standby clones
# and streams as, and admits it: the image's own pg_hba.conf line (`host all all all`) does not cover
# replication connections.
set -e
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set=repl_user="$PG_REPLICATION_USER" --set=repl_password="$PG_REPLICATION_PASSWORD" <<'SQL'
CREATE ROLE :"repl_user" WITH REPLICATION LOGIN PASSWORD :'repl_password';
SQL
printf 'host replication %s all scram-sha-256\n' "$PG_REPLICATION_USER" >>"$PGDATA/pg_hba.conf"
