"""The API's errors: one exception per HTTP status, each with a message that says why.

The game code raises these; the app turns each into `{"error": message}` with its status.
Every client mistake maps to a 4xx here, so a 500 always means a bug in the server.
"""

from __future__ import annotations


class ApiError(Exception):
    status = 500

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class BadHost(ApiError):
    """A request addressed to a host name the server does not answer (DNS rebinding)."""

    status = 400


class IllegalMove(ApiError):
    """The action is not legal here (the message says why); nothing changed."""

    status = 400


class MissingToken(ApiError):
    status = 401


class WrongToken(ApiError):
    status = 403


class NotFound(ApiError):
    status = 404


class UnknownGame(NotFound):
    """No game of that id: never made, or dropped after idling."""


class Conflict(ApiError):
    """Not the human's turn, the game is over, or nothing to undo."""

    status = 409


class BodyTooLarge(ApiError):
    status = 413


class MalformedBody(ApiError):
    """Not JSON, or JSON of the wrong shape (a missing field, a wrong type, a bad value)."""

    status = 422


class ServerFull(ApiError):
    """The server holds its maximum number of games; idle ones are dropped in time."""

    status = 503
