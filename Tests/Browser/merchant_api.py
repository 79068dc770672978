"""The merchant API as the browser checks call it: with the secret key, as a merchant's own server would."""

import json
import urllib.request
from typing import Callable


def merchant_api(base: str, api_key: str) -> Callable[..., dict]:
    """`api(method, path, body=None)` for the server at `base`, answering the parsed JSON."""

    def api(method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            base + path,
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"Bearer {api_key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    return api
