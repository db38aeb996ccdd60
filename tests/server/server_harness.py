"""Starts oxinfer-server on a free loopback port and stops it, for the
openai-client tests. Every wait is bounded."""
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest
import urllib.request

START_TIMEOUT_S = 120


class Server:
    def __init__(self, binary, model, plugin_dirs, *extra):
        self.log = tempfile.NamedTemporaryFile(
            "w+", dir=os.environ.get("TEST_TMPDIR"), suffix=".log", delete=False)
        args = [binary, "--model", model, "--plugin-dir", plugin_dirs, "--port", "0",
                "--threads", "1", "--device", "cpu", *extra]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + START_TIMEOUT_S
        self.port = None
        while time.monotonic() < deadline and self.port is None:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited at start:\n" + self.output())
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.output())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.1)
        if self.port is None:
            self.proc.kill()
            raise RuntimeError("the server did not start in time:\n" + self.output())
        self.url = f"http://127.0.0.1:{self.port}"

    def output(self):
        with open(self.log.name) as f:
            return f.read()

    def get(self, path, headers=None):
        req = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def post_raw(self, path, body, headers=None):
        req = urllib.request.Request(self.url + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def metric(self, name):
        _, text = self.get("/metrics")
        m = re.search(rf"^{name} (\S+)$", text, re.M)
        return float(m.group(1)) if m else None

    def stop(self):
        """SIGTERM; returns the exit code (the server must exit 0)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise RuntimeError("the server did not stop on SIGTERM:\n" + self.output())
        return self.proc.returncode


class ServerCase(unittest.TestCase):
    """Tests sharing one server: a subclass sets `server_args` (binary, model,
    plugin dirs, then flags); each test gets `self.server` and an openai client
    `self.client` without retries. The server must exit 0 on SIGTERM."""
    server_args = ()
    client_timeout = 60

    @classmethod
    def setUpClass(cls):
        import openai  # only the openai-client tests have it installed

        cls.server = Server(*cls.server_args)
        cls.client = openai.OpenAI(base_url=cls.server.url + "/v1", api_key="none",
                                   timeout=cls.client_timeout, max_retries=0)

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        assert code == 0, f"exit code {code} after SIGTERM:\n{cls.server.output()}"
