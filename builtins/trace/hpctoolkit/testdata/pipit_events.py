import sys
sys.path.insert(0, "/tmp/pipit")
import pipit
t = pipit.Trace.from_hpctoolkit(sys.argv[1])
cols = ["Timestamp (ns)", "Event Type", "Name", "Process", "Thread", "Source File Name", "Source File Line Number", "Calling Context ID"]
t.events[cols].to_csv(sys.argv[2], index=False)
