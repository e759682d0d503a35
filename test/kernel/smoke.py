import time, jupyter_client
km, kc = jupyter_client.manager.start_new_kernel(kernel_name="tracebook", startup_timeout=30)
try:
    r = kc.execute_interactive('x := 40\nfmt.Println("hi")\nx + 2', timeout=20, output_hook=lambda m: print(m["msg_type"], m["content"]))
    print("reply", r["content"]["status"])
    info = kc.kernel_info(reply=True)
    print(info["content"]["language_info"])
finally:
    kc.stop_channels(); km.shutdown_kernel(now=False)
