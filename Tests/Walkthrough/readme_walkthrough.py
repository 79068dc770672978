"""Runs the README's five-minute walkthrough as printed, against a fresh `ordertrack serve`, so it cannot drift.

    python3 Tests/Walkthrough/readme_walkthrough.py path/to/ordertrack

The walkthrough's commands are the README's ```sh blocks, in order. They run in one bash (errors stop it) in a fresh
directory where the server was started as the README starts it (default ./ordertrack-data, development mode), on a
free port instead of 8080: the walkthrough reads the address from dev-credentials.json. Each step's answer is checked
for what the README says it shows.
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


def sh_blocks(readme: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", readme, flags=re.S | re.M)


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
            script = "set -euo pipefail\n" + "".join(f"echo '>>> step {i}'\n{block}" for i, block in enumerate(blocks, 1))
            run = subprocess.run(["bash", "-c", script], cwd=work, capture_output=True, text=True, timeout=120)
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
        for what, pattern in expected:
            if not re.search(pattern, transcript, flags=re.M):
                failures.append(f"{what}: no match for {pattern}")
        server_log = (Path(work) / "server.log").read_text()
        if PUSHED not in server_log:
            failures.append(f"the server's terminal does not show {PUSHED!r}")
        if failures:
            print("walkthrough: the README's walkthrough does not run as printed:", file=sys.stderr)
            for failure in failures:
                print(f"  {failure}", file=sys.stderr)
            print((Path(work) / "server.log").read_text()[-2000:], file=sys.stderr)
            return 1
    print(f"walkthrough: the README's {len(blocks)} sh blocks ran as printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
