"""The operator catalog. Importing this package must not import Django: the harness uses it on
runner machines. The Django app parts (models, admin, commands) load only inside the site."""
