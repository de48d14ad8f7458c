#!/usr/bin/env python3
"""A singleton worker in any language: it follows its leadership through the Baton agent beside it.

Standard library only (urllib, json, http.server). It serves a tiny HTTP app on 127.0.0.1:8081 (APP_PORT),
which the agent's gate exposes on :8080 only while this pod leads; it runs its job only while the
agent answers leader=true, passes the term with every write, and takes a fenced lock through the
agent for its nightly report.
"""

import json
import os
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

AGENT = os.environ.get("BATON_AGENT", "http://127.0.0.1:4040")
LOCK = os.environ.get("LOCK_NAME", "orders-report")  # the RedisLock's name, in this namespace
APP_PORT = int(os.environ.get("APP_PORT", "8081"))  # the gate's target


def call(method, path):
    """One request to the agent: (status, JSON body); 4xx answers are bodies too.

    Retried while the agent does not answer (it may start after the app, or restart)."""
    while True:
        request = urllib.request.Request(AGENT + path, method=method)
        try:
            with urllib.request.urlopen(request, timeout=70) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)
        except OSError as e:
            print(f"the agent does not answer ({e}); retrying", flush=True)
            time.sleep(0.5)


def wait_for_change(leader, wait="30s"):
    """Long poll: answers as soon as the role differs from `leader`, or after `wait`."""
    return call("GET", f"/v1/leadership?wait={wait}&leader={'true' if leader else 'false'}")[1]


def write(term, what):
    # Pass the term with every write; the store refuses a term lower than the highest it has seen.
    print(f"write term={term}: {what}", flush=True)


def report_under_lock():
    status, body = call("POST", f"/v1/locks/{LOCK}?ttl=30s&wait=5s")
    if status == 409:
        print(f"report: the lock is held by {body.get('holder')}", flush=True)
        return
    if status != 200:
        print(f"report: no lock ({status}): {body.get('error')}", flush=True)
        return
    token = body["token"]
    try:
        for part in range(3):
            write(f"lock-token {token}", f"report part {part}")
            time.sleep(1)
            status, _ = call("POST", f"/v1/locks/{LOCK}/renew")
            if status != 200:
                print("report: lock lost, stopping", flush=True)
                return
    finally:
        call("DELETE", f"/v1/locks/{LOCK}")


class App(BaseHTTPRequestHandler):
    """What the Service reaches, through the gate, only on the leader."""

    def do_GET(self):
        body = f"served by {os.environ.get('POD_NAME', '?')}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    # Loopback only: nothing but the agent's gate reaches the app.
    threading.Thread(
        target=ThreadingHTTPServer(("127.0.0.1", APP_PORT), App).serve_forever, daemon=True
    ).start()
    open("/tmp/ready", "w").close()
    state = call("GET", "/v1/leadership")[1]
    while True:
        if not state["leader"]:
            state = wait_for_change(False)
            continue
        term = state["term"]
        print(f"leading with term {term} in group {state['group']}", flush=True)
        write(term, "job step")
        report_under_lock()
        # Until the next step: returns at once on demotion.
        state = wait_for_change(True, wait="5s")
        if not state["leader"]:
            print("no longer leader: stopped", flush=True)


if __name__ == "__main__":
    main()
