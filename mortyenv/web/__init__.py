"""`morty serve`: the board in the browser against the agents, and a JSON API.

`create_app()` builds the app (Starlette); `mortyenv/apps/serve.py` runs it on uvicorn. Nothing
in the rules or the engines imports this package.
"""

from mortyenv.web.app import create_app

__all__ = ["create_app"]
