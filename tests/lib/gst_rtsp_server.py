#!/usr/bin/python3
"""GStreamer's RTSP server (gst-rtsp-server, Debian's python3-gi and
gir1.2-gst-rtsp-server-1.0) for tests/rtsp: one live stream at /test, a
video track (videotestsrc, 160x120 at 10 frames/s, JPEG, RTP payload 26)
and an audio track (audiotestsrc, 8 kHz mono, PCMU, payload 0), and the video
track alone at /video (for gst-launch's rtspsrc, whose second pad
gst-launch would leave unlinked): small enough for the VM's emulated
CPU.

  gst_rtsp_server.py --addr ADDR [--addr ADDR]... [--port 554] [--ready FILE]

One server per --addr (a listening socket bound to that address: the
IPv4 and the IPv6 one do not clash on the port); the RTP/RTCP sockets
are bound to it too (a unicast address pool, ports 6000-6999).  Once every server
listens, "ready" goes to FILE (and stdout).  Each client gets its own
pipeline (not shared), which gst-rtsp-server starts at PLAY.  Runs until
killed.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

VIDEO = ("videotestsrc is-live=true pattern=ball "
          "! video/x-raw,format=I420,width=160,height=120,framerate=10/1 "
          "! jpegenc quality=50 ! rtpjpegpay name=pay0 pt=26")
AUDIO = ("audiotestsrc is-live=true wave=sine "
          "! audio/x-raw,rate=8000,channels=1 ! mulawenc "
          "! rtppcmupay name=pay1 pt=0")
MOUNTS = {"/test": "( %s %s )" % (VIDEO, AUDIO), "/video": "( %s )" % VIDEO}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", action="append", required=True)
    ap.add_argument("--port", default="554")
    ap.add_argument("--ready")
    args = ap.parse_args()
    Gst.init(None)
    loop = GLib.MainLoop()
    servers = []
    for addr in args.addr:
        srv = GstRtspServer.RTSPServer()
        srv.set_address(addr)
        srv.set_service(args.port)
        for path, launch in MOUNTS.items():
            factory = GstRtspServer.RTSPMediaFactory()
            factory.set_launch(launch)
            factory.set_shared(False)
            # The media's UDP sockets bound to ADDR too: unbound, they
            # would send from the interface's first address, not the
            # one the client dialled (a helper expects the media from
            # the RTSP connection's server address).
            pool = GstRtspServer.RTSPAddressPool()
            pool.add_range(addr, addr, 6000, 6999, 0)
            factory.set_address_pool(pool)
            srv.get_mount_points().add_factory(path, factory)
        if srv.attach(None) == 0:
            print("error: cannot listen on [%s]:%s" % (addr, args.port),
                  file=sys.stderr)
            return 1
        servers.append(srv)
    print("ready", flush=True)
    if args.ready:
        with open(args.ready, "w", encoding="ascii") as f:
            f.write("ready\n")
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
