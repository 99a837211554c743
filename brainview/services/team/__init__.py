"""A team at one ``brainview serve``: who may sign in, with which role.

:mod:`brainview.services.team.accounts` keeps the users file (add, remove, set a role
or a password, issue a bearer token) and checks a password or a token at sign-in.
"""
