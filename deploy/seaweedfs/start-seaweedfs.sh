#!/bin/sh
# docker-compose's object store (mounted as /etc/corelite/start-seaweedfs.sh): one SeaweedFS server
# (master, volume, filer and S3 gateway in one process) whose only S3 identity is the services' own,
# limited to the corelite bucket. The identity is written from the environment at each start into a
# file only the server's user reads, so that no key is ever in a file of the repository.
set -eu
: "${S3_ACCESS_KEY:?S3_ACCESS_KEY is required}" "${S3_SECRET_KEY:?S3_SECRET_KEY is required}"
identities=/tmp/s3-identities.json
umask 077
printf '{"identities":[{"name":"corelite-services","credentials":[{"accessKey":"%s","secretKey":"%s"}],"actions":["Read:corelite","Write:corelite","List:corelite","Tagging:corelite"]}]}\n' \
  "$S3_ACCESS_KEY" "$S3_SECRET_KEY" > "$identities"
# the image's entrypoint drops from root to its `seaweed` user, which must read the file
if [ "$(id -u)" = 0 ]; then chown seaweed:seaweed "$identities"; fi
# -ip: the name the other containers reach it by (s3-init asks the master where the filer is)
exec /entrypoint.sh server -ip=s3 -ip.bind=0.0.0.0 -s3 -s3.config="$identities"
