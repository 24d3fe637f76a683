#!/bin/sh
# docker-compose's s3-init (mounted as /etc/corelite/create-bucket.sh): creates the corelite bucket,
# owned by the services' identity, through SeaweedFS's admin shell (which talks to the master and
# filer on the compose network and needs no S3 key). Run once per start; an existing bucket is kept.
set -eu
if echo 's3.bucket.list' | weed shell -master=s3:9333 | grep -qw corelite; then
  echo 'bucket corelite: already there'
  exit 0
fi
echo 's3.bucket.create -name corelite -owner corelite-services' | weed shell -master=s3:9333
echo 's3.bucket.list' | weed shell -master=s3:9333 | grep -qw corelite
