"""SQLite persistence through sqlite-utils: the only package with SQL in it.

Import the classes from their modules (`alice_app.store.failures.FailureBank`, ...); this package
file stays empty of imports so that opening the bank never pulls in the curriculum core.
"""
