"""`from evalsite.client import Client`: the documented import path of the REST API's Python client,
whose code is in evalsite/sdk/client.py."""

from evalsite.sdk.client import Client, EvalsiteAPIError

__all__ = ["Client", "EvalsiteAPIError"]
