#!/bin/sh
# The Dockerfile's `slapd` target: the demo directory of docker-compose on Debian's slapd, configured
# as the local stack configures it (tools/stack/slapd-config.ts: the same schemas, one mdb database
# with the memberof overlay). The admin password comes from LDAP_ADMIN_PASSWORD and is written only
# hashed; the directory is seeded from seed-directory.ldif when its database is empty.
set -eu
: "${LDAP_ADMIN_PASSWORD:?LDAP_ADMIN_PASSWORD is required}"
suffix='dc=corelite,dc=local'
data=/var/lib/ldap/corelite
config=/run/slapd/slapd.conf
mkdir -p "$data" /run/slapd
chown openldap:openldap "$data" /run/slapd
umask 027
cat > "$config" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
pidfile /run/slapd/slapd.pid
argsfile /run/slapd/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
database mdb
maxsize 268435456
suffix "$suffix"
rootdn "cn=admin,$suffix"
rootpw $(slappasswd -h '{SSHA}' -s "$LDAP_ADMIN_PASSWORD")
directory $data
index objectClass eq
index uid,memberUid,member eq
overlay memberof
access to attrs=userPassword
  by self write
  by anonymous auth
  by * none
access to *
  by * read
CONF
chgrp openldap "$config"
# Seeded through a running slapd on a loopback port (as the local stack does with ldapadd) rather
# than slapadd, so that the memberof overlay fills each user's memberOf.
if [ -z "$(ls -A "$data")" ]; then
  seed='ldap://127.0.0.1:3899/'
  slapd -h "$seed" -f "$config" -u openldap -g openldap
  until ldapsearch -x -H "$seed" -b '' -s base >/dev/null 2>&1; do sleep 0.2; done
  (umask 077 && printf '%s' "$LDAP_ADMIN_PASSWORD" > /run/slapd/seed.password)
  ldapadd -x -H "$seed" -D "cn=admin,$suffix" -y /run/slapd/seed.password -f /etc/ldap/seed-directory.ldif >/dev/null
  rm -f /run/slapd/seed.password
  kill "$(cat /run/slapd/slapd.pid)"
  while [ -e /run/slapd/slapd.pid ]; do sleep 0.2; done
fi
exec slapd -d none -h 'ldap:///' -f "$config" -u openldap -g openldap
