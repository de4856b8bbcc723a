"""Debian's chromium, headless, driven over its DevTools protocol with the
Python standard library only (a minimal WebSocket client), so that one
browser launch can load many pages at several widths.

    with Browser(workdir) as b:
        page = b.load("file:///.../report.html", width=1280)
        page["errors"], page["measure"], page["dom"], page["png"]

load() returns what a test needs of the loaded page: the console errors,
uncaught exceptions and failed resources seen while loading it, the result
of MEASURE (layout and the smallest text drawn, evaluated in the page after
its load event), the DOM as
--dump-dom serializes it, and a PNG screenshot of the top of the page.
"""
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request
import zlib

# Evaluated in the page: its width, how wide its content is, each chart's box
# (its figure's, which it may scroll in) and drawn elements, the smallest
# text drawn, the resources it fetched and the script elements it has.
MEASURE = """(() => {
  const root = document.documentElement;
  const shown = e => e.getClientRects().length > 0;
  const svgs = [...document.querySelectorAll('svg')].map(s => {
    const r = s.getBoundingClientRect();
    // A chart may scroll sideways inside its figure: the figure is what must fit.
    const box = (s.closest('figure') || s).getBoundingClientRect();
    return {left: box.left, right: box.right, width: r.width, height: r.height,
            shapes: s.querySelectorAll('rect, line, polyline, path, circle').length,
            folded: s.closest('details:not([open])') !== null};
  });
  // The smallest text drawn, in CSS px: page text by its computed size, chart
  // text by its size times the chart's scale.
  const sizes = [...document.body.querySelectorAll('*')].filter(e =>
      shown(e) && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
    .map(e => {
      const px = parseFloat(getComputedStyle(e).fontSize);
      const svg = e.closest('svg');
      return {px: svg ? px * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width : px,
              text: e.textContent.trim().slice(0, 40)};
    });
  const smallest = sizes.reduce((a, b) => (a && a.px <= b.px ? a : b), null);
  return {width: root.clientWidth, scroll_width: root.scrollWidth, svgs: svgs, smallest: smallest,
          resources: performance.getEntriesByType('resource').map(e => e.name),
          scripts: document.querySelectorAll('script').length};
})()"""


class _WebSocket:
    def __init__(self, url):
        host, port_path = url[len("ws://"):].split(":", 1)
        port, path = port_path.split("/", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, host, port, key)).encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(4096)
        if b" 101 " not in response.split(b"\r\n", 1)[0]:
            raise RuntimeError("websocket handshake failed: %r" % response[:200])
        self.buffer = response.split(b"\r\n\r\n", 1)[1]

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else
                                bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def receive(self):
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            message += self._read(n)
            if b0 & 0x80:
                return message.decode()


def _end_group(proc):
    """SIGTERM to proc's process group; SIGKILL to what is left after 5 s."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    proc.wait()
    for i in range(200):
        try:
            os.killpg(proc.pid, signal.SIGKILL if i == 100 else 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


class Browser:
    def __init__(self, workdir):
        self.workdir = workdir

    def __enter__(self):
        # Chromium leaves org.chromium.Chromium.* folders in TMPDIR when it is
        # terminated, and makes a socket there whose path must stay under 108
        # bytes (a suite's TMPDIR can be longer): it gets a folder of its own
        # in /tmp, removed on exit.
        self.tmp = tempfile.mkdtemp(prefix="chromium.", dir="/tmp")
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--hide-scrollbars", "--user-data-dir=" + os.path.join(self.workdir, "profile"),
             "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, TMPDIR=self.tmp), start_new_session=True)
        for line in self.proc.stderr:
            if line.startswith("DevTools listening on "):
                port = line.split("127.0.0.1:", 1)[1].split("/", 1)[0]
                break
        else:
            raise RuntimeError("chromium did not start")
        with urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port) as r:
            target = next(t for t in json.load(r) if t["type"] == "page")
        self.ws = _WebSocket(target["webSocketDebuggerUrl"])
        self.next_id = 0
        self.events = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        return self

    def __exit__(self, *exc):
        # Chromium's other processes (renderer, zygote, crashpad) can outlive
        # the browser's and go on writing into the profile in the caller's
        # folder while it is removed, which then stays (scripts/test.sh
        # found a view_pages.* folder left in the suite's TMPDIR): the whole
        # process group is ended, and waited for, first.
        _end_group(self.proc)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def call(self, method, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message["result"]
            self.events.append(message)

    def _wait_for(self, method):
        while not any(e.get("method") == method for e in self.events):
            self.events.append(json.loads(self.ws.receive()))

    def _errors(self):
        errors = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                errors.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append("console.%s: %s" % (p["type"], p.get("args")))
            elif m == "Log.entryAdded" and p["entry"]["level"] == "error":
                errors.append("log: %s" % p["entry"]["text"])
            elif m == "Network.loadingFailed":
                errors.append("failed resource: %s" % p.get("errorText"))
        return errors

    def load(self, url, width, height=900, shot_scale=None):
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)
        self.events = []
        self.call("Page.navigate", url=url)
        self._wait_for("Page.loadEventFired")
        measure = self.call("Runtime.evaluate", expression=MEASURE, returnByValue=True)
        dom = self.call("Runtime.evaluate", returnByValue=True,
                        expression="new XMLSerializer().serializeToString(document)")
        result = {"errors": self._errors(), "measure": measure["result"]["value"],
                  "dom": dom["result"]["value"]}
        # The top of the page; small, since decoding it in Python is slow.
        for key, scale in (("thumb", 0.25), ("png", shot_scale)):
            if scale:
                shot = self.call("Page.captureScreenshot", format="png",
                                 clip={"x": 0, "y": 0, "width": width, "height": height,
                                       "scale": scale})
                result[key] = base64.b64decode(shot["data"])
        return result


def png_pixels(png):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    pos, chunks, header = 8, [], None
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + n
    width, height, depth, color = header[:4]
    if depth != 8 or color not in (2, 6):
        raise RuntimeError("unexpected PNG format: depth %d colour type %d" % (depth, color))
    bpp = 3 if color == 2 else 4
    raw, stride, rows, prev = zlib.decompress(b"".join(chunks)), width * bpp, [], None
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        prev = prev or bytearray(stride)
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(line)
        prev = line
    return width, height, bpp, rows
