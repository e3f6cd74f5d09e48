#!/usr/bin/env python3
"""A logging pass-through between baton and a real OpenAI-compatible server (stdlib only).

    proxy.py LISTEN_PORT UPSTREAM_BASE LOG [--force-tool-first]

Every request is forwarded as is to UPSTREAM_BASE (e.g. http://127.0.0.1:8080) and the answer is
streamed back byte for byte as it arrives. LOG gets one JSON line per request: the method, the
path, the request body (parsed), the status, and the answer's `data:` payloads (or its body).

--force-tool-first: a chat request that offers tools and whose last message is the user's (the
first model call of a turn) is forwarded with `"tool_choice": "required"` and one more message,
an assistant message `<tool_call>\n` that llama-server continues (a prefill), so the model that
would not choose a tool on its own must write a tool call, under the server's own grammar, which
the server parses and streams as `tool_calls`. LOG keeps the body baton sent and says
`"forced": true`. Nothing else is ever changed.
"""

import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
# An assistant message the server continues (llama-server prefills it): with it, the tool-call
# grammar starts inside the call, so the model must call a tool (the server parses it).
PREFILL = {"role": "assistant", "content": "<tool_call>\n"}
COUNT = [0]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 3:
        sys.exit(__doc__)
    port, upstream, log = int(args[0]), urllib.parse.urlsplit(args[1]), args[2]
    force = "--force-tool-first" in sys.argv

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def do_GET(self):
            self.forward(None)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            self.forward(self.rfile.read(n))

        def forward(self, raw):
            body, forced = None, False
            if raw:
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
            if (
                force
                and isinstance(body, dict)
                and body.get("tools")
                and "tool_choice" not in body
                and (body.get("messages") or [{}])[-1].get("role") == "user"
            ):
                sent = dict(body, tool_choice="required")
                sent["messages"] = body["messages"] + [PREFILL]
                forced = True
                raw = json.dumps(sent).encode()
            headers = {
                k: v
                for k, v in self.headers.items()
                if k.lower() not in ("host", "content-length", "connection", "accept-encoding")
            }
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=600)
            try:
                conn.request(self.command, self.path, body=raw, headers=headers)
                resp = conn.getresponse()
            except OSError as e:
                self.send_error(502, f"upstream: {e}")
                return
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                    self.send_header(k, v)
            self.send_header("Connection", "close")
            self.end_headers()
            got = bytearray()
            while True:
                piece = resp.read1(65536)
                if not piece:
                    break
                got += piece
                try:
                    self.wfile.write(piece)
                    self.wfile.flush()
                except OSError:
                    break  # baton dropped the stream (an interrupt)
            conn.close()
            self.close_connection = True
            text = got.decode("utf-8", "replace")
            data = [l[5:].strip() for l in text.splitlines() if l.startswith("data:")]
            answer = []
            for d in data:
                try:
                    answer.append(json.loads(d))
                except ValueError:
                    answer.append(d)
            if not data:
                try:
                    answer = json.loads(text)
                except ValueError:
                    answer = text[:4000]
            with LOCK:
                COUNT[0] += 1
                line = {
                    "n": COUNT[0],
                    "method": self.command,
                    "path": self.path,
                    "forced": forced,
                    "body": body,
                    "status": resp.status,
                    "answer": answer,
                }
                with open(log, "a", encoding="utf-8") as f:
                    f.write(json.dumps(line) + "\n")

    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
