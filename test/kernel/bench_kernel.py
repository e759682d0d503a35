"""Kernel figures through a real client (jupyter_client): start to ready,
trivial-cell round trip, idle RSS, interrupt latency. Prints a table; run by
`make bench`. These are measurements, not assertions."""
import statistics
import time

import jupyter_client


def start():
    """Launch the kernel process and time it until its first kernel_info_reply
    (the request is queued by libzmq before the kernel's sockets exist)."""
    km = jupyter_client.KernelManager(kernel_name="tracebook")
    t0 = time.perf_counter()
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.kernel_info()
    kc.get_shell_msg(timeout=60)
    dt = time.perf_counter() - t0
    kc.wait_for_ready(timeout=60)
    return km, kc, dt


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def roundtrip(kc, code):
    t0 = time.perf_counter()
    msg_id = kc.execute(code)
    reply = kc.get_shell_msg(timeout=30)
    t_reply = time.perf_counter() - t0
    assert reply["parent_header"]["msg_id"] == msg_id
    while True:
        m = kc.get_iopub_msg(timeout=30)
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    return t_reply, time.perf_counter() - t0


def main():
    starts = []
    for _ in range(5):
        km, kc, dt = start()
        starts.append(dt)
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    km, kc, _ = start()
    try:
        pid = km.provisioner.process.pid
        time.sleep(1.0)
        rss_fresh = rss_kib(pid)
        for _ in range(50):
            roundtrip(kc, "1")
        replies, idles = [], []
        for _ in range(500):
            r, i = roundtrip(kc, "1")
            replies.append(r)
            idles.append(i)
        time.sleep(1.0)
        rss_idle = rss_kib(pid)
        ints = []
        kc.execute_interactive("n := 0", timeout=30)
        for _ in range(5):
            kc.execute("for { n++ }")
            time.sleep(0.3)
            t0 = time.perf_counter()
            km.interrupt_kernel()
            reply = kc.get_shell_msg(timeout=30)
            ints.append(time.perf_counter() - t0)
            assert reply["content"]["ename"] == "Interrupted", reply["content"]
        q = lambda xs, p: sorted(xs)[int(p * (len(xs) - 1))]
        print("tracebook kernel figures (jupyter_client %s)" % jupyter_client.__version__)
        print("  launch to first kernel_info_reply (5 runs)  median %.0f ms  (min %.0f, max %.0f)" % (
            1e3 * statistics.median(starts), 1e3 * min(starts), 1e3 * max(starts)))
        print("  trivial cell '1', execute -> reply (500)    median %.2f ms  p90 %.2f ms" % (
            1e3 * statistics.median(replies), 1e3 * q(replies, 0.9)))
        print("  trivial cell '1', execute -> idle  (500)    median %.2f ms  p90 %.2f ms" % (
            1e3 * statistics.median(idles), 1e3 * q(idles, 0.9)))
        print("  idle RSS, fresh kernel (1 s after ready)    %.1f MiB" % (rss_fresh / 1024))
        print("  idle RSS after 550 cells                    %.1f MiB" % (rss_idle / 1024))
        print("  interrupt latency, busy loop (5)            median %.0f ms  max %.0f ms" % (
            1e3 * statistics.median(ints), 1e3 * max(ints)))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)


if __name__ == "__main__":
    main()
