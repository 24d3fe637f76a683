/* global db */
// Runs once, when mongo's data volume is new (the image runs /docker-entrypoint-initdb.d as root):
// the services' own user, limited to the corelite database.
db.getSiblingDB('corelite').createUser({
  user: 'corelite',
  pwd: process.env.MONGO_SERVICE_PASSWORD,
  roles: [
    { role: 'readWrite', db: 'corelite' },
    { role: 'dbAdmin', db: 'corelite' },
  ],
});
