"""Runs the README's five-minute walkthrough as printed, then the examples of docs/, against a fresh `ordertrack serve`,
so they cannot drift.

    python3 Tests/Walkthrough/readme_walkthrough.py path/to/ordertrack

The walkthrough's commands are the README's ```sh blocks, in order. They run in one bash (errors stop it) in a fresh
directory where the server was started as the README starts it (default ./ordertrack-data, development mode), on a
free port instead of 8080: the walkthrough reads the address from dev-credentials.json. Each step's answer is checked
for what the README says it shows. The docs' examples continue in the same shell, with the walkthrough's variables
($KEY, $BASE, $TYPE, $ID, $TOKEN) as the docs say; every error code they meet must be one the docs show on purpose, and
no status line may be a 4xx or 5xx. A page of docs/ with ```sh blocks is either run or listed with why it is not.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# What the README says the server's terminal shows after the shipment.
PUSHED = "mock APNs: push for order.dev.ordertrack.demo to device …abababab: delivered"


# Pages whose examples run after the walkthrough, in this order (each builds on the walkthrough's order).
DOCS_RUN = ["api.md", "push-delivery.md", "track-in-wallet.md", "wallet-web-service.md", "lookup.md", "carrier-tracking.md", "events.md", "insights.md", "webhooks.md"]
# Pages whose examples do not run here, and why.
DOCS_NOT_RUN = {
    "performance.md": "release-build benchmarks of minutes each; CI runs them as `ordertrack bench` separately",
    "fuzzing.md": "fuzzing needs a sanitizer build; scripts/fuzz runs in CI",
    "security.md": "master-key rotation needs the server stopped and the old key at hand",
    "apple-pay.md": "decrypting needs a merchant's own payment processing certificate and a token sealed to it",
    "reliability.md": "the soak runs for minutes; the test command runs its 3-minute version as a step of its own",
}
# The error codes docs/ shows on purpose: a stale If-Match, a restricted key's refused change.
EXPECTED_ERRORS = {"order_version_mismatch", "change_not_allowed"}
DOCS_EXPECTED = [
    ("api.md: the PATCH with a current ETag", r'"statusDescription":\s*"Packed"'),
    ("api.md: the bulk update's applied line", r'"result":\s*"applied"'),
    ("api.md: the bulk update's stale line", r'"line":\s*2,\s*"result":\s*"failed",\s*"status":\s*412'),
    ("api.md: the restricted key's tracking update", r'"status":\s*"onTheWay"'),
    ("api.md: the restricted key's refusal", r"change_not_allowed"),
    ("api.md: the history", r'"data":'),
    ("track-in-wallet.md: the simplified order created", r'"orderNumber":\s*"SIMPLE-1001"'),
    ("track-in-wallet.md: the order type's effective defaults", r'"effective":'),
    ("track-in-wallet.md: the link", r'"url":\s*"http'),
    ("wallet-web-service.md: the unchanged order", r"^304$"),
    ("wallet-web-service.md: the registration", r"^201$"),
    ("lookup.md: Apple's client verified the walkthrough's order", r"^lookup: Coffee beans 2 21000 USD$"),
    ("carrier-tracking.md: the connection made", r'"webhookURL":\s*"http'),
    ("carrier-tracking.md: the generic event accepted", r'"status":\s*"accepted"'),
    ("carrier-tracking.md: the order followed the parcel", r"^outForDelivery$"),
    ("events.md: the latest update in the event log", r'"type":\s*"order\.updated"'),
    ("insights.md: the walkthrough's orders in the hourly series", r'"ordersCreated":\s*[1-9]'),
    ("webhooks.md: the endpoint made, its secret shown once", r'"secret":\s*"whsec_'),
    ("webhooks.md: the platform's endpoint serves the demo merchant", r"\tenabled for 1 merchant\t\*\thttps://platform\.example\.com/"),
    ("webhooks.md: the platform's endpoint deleted", r"^deleted wep_"),
]


def sh_blocks(readme: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", readme, flags=re.S | re.M)


def docs_script() -> tuple[str, list[str]]:
    """The docs' examples as one script, each block announced; and the pages neither run nor excused."""
    unaccounted = [
        page.name for page in sorted((ROOT / "docs").glob("*.md"))
        if sh_blocks(page.read_text()) and page.name not in DOCS_RUN and page.name not in DOCS_NOT_RUN
    ]
    script = "echo '>>> docs'\n"
    for name in DOCS_RUN:
        for i, block in enumerate(sh_blocks((ROOT / "docs" / name).read_text()), 1):
            script += f"echo '>>> docs/{name} example {i}'\n{block}\necho\n"
    return script, unaccounted


def main() -> int:
    binary = Path(sys.argv[1]).resolve()
    blocks = sh_blocks((ROOT / "README.md").read_text())
    if len(blocks) < 5:
        print(f"walkthrough: only {len(blocks)} sh blocks in README.md", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="ordertrack-walkthrough.") as work:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        log = open(Path(work) / "server.log", "w")
        server = subprocess.Popen(
            [str(binary), "serve", "--port", str(port), "--mock-apns"], cwd=work, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                    break
                except OSError:
                    if server.poll() is not None:
                        break
                    time.sleep(0.1)
            docs, unaccounted = docs_script()
            script = "set -euo pipefail\n" + "".join(f"echo '>>> step {i}'\n{block}" for i, block in enumerate(blocks, 1)) + docs
            # `ordertrack` as the docs call it: the binary under test first on PATH.
            env = dict(os.environ, PATH=f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}")
            run = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True, text=True, timeout=180, env=env)
            # The push reaches the mock a moment after the PATCH's answer: wait for its line before stopping the server.
            for _ in range(300):
                if PUSHED in (Path(work) / "server.log").read_text():
                    break
                time.sleep(0.1)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
            log.close()
        transcript = run.stdout
        print(transcript)
        failures = []
        if run.returncode != 0:
            failures.append(f"the walkthrough stopped with status {run.returncode}: {run.stderr.strip()}")
        expected = [
            ("the create answer's orderDetails", r'"orderTypeIdentifier": "order\.dev\.ordertrack\.demo"'),
            ("the order read back with its version", r'(?i)^etag: "1"'),
            ("the device registered", r"^HTTP/1\.1 201 Created"),
            ("the shipment applied as version 2", r'(?i)^etag: "2"'),
            ("the stale If-Match refused", r"order_version_mismatch"),
            ("the package's order.json", r"order\.json"),
            ("the package's signature", r"\bsignature\b"),
            ("the dashboard's address", rf"/dashboard with (sk|rk)_"),
        ]
        walkthrough, _, docs_transcript = transcript.partition(">>> docs\n")
        for what, pattern in expected:
            if not re.search(pattern, walkthrough, flags=re.M):
                failures.append(f"{what}: no match for {pattern}")
        for what, pattern in DOCS_EXPECTED:
            if not re.search(pattern, docs_transcript, flags=re.M):
                failures.append(f"{what}: no match for {pattern}")
        for code in sorted(set(re.findall(r'"code":\s*"([a-z_]+)"', docs_transcript)) - EXPECTED_ERRORS):
            failures.append(f"an example of docs/ met the error {code}")
        for status in re.findall(r"^[45]\d\d$", docs_transcript, flags=re.M):
            failures.append(f"an example of docs/ answered {status}")
        for page in unaccounted:
            failures.append(f"docs/{page} has sh examples, but is neither run nor listed in DOCS_NOT_RUN with a reason")
        server_log = (Path(work) / "server.log").read_text()
        if PUSHED not in server_log:
            failures.append(f"the server's terminal does not show {PUSHED!r}")
        if failures:
            print("walkthrough: the README's walkthrough does not run as printed:", file=sys.stderr)
            for failure in failures:
                print(f"  {failure}", file=sys.stderr)
            print((Path(work) / "server.log").read_text()[-2000:], file=sys.stderr)
            return 1
    print(f"walkthrough: the README's {len(blocks)} sh blocks and the examples of {', '.join(DOCS_RUN)} ran as printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
