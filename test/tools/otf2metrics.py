#!/usr/bin/python3
"""Write, with the reference OTF2 library (python3-otf2), the shape of a Score-P run with
asynchronous metric plugins (rocm_smi, coretemp) and a measurement switched off.

  otf2metrics.py OUT_DIR [--ranks N] [--streams K]

N ranks (default 2), each a location group with its "Master thread" (CPU_THREAD). Rank 0's
group also holds K METRIC locations (default 3), defined right after its master thread (so
that location and process indices differ), as Score-P writes its per-host metric
plugins: "coretemp" (member coretemp/temp, unit C) and "rocm_smi device=0", "rocm_smi
device=1", ... (member rocm_smi/power, unit W), each sampled every 50 us from t=0 to t=1 ms with
value = 40 + stream + sample/10. The last rank's group holds one more METRIC location,
"coretemp rank N-1" (its host; distinct names, as the library merges equal definitions). The master threads run main [100 us, 900 us] (rank 0: [100 us, 1000 us]) holding compute
[200 us, 800 us], and rank 0's master records a synchronous PAPI_TOT_CYC counter at its
Enter/Leave events. Rank 0 sends 64 bytes to rank 1 (tag 7) inside compute. The last rank
switches the measurement OFF at 300 us and ON again at 600 us (inside compute), and OFF again
for good 50 us after its main ends (at 950 us; rank 0's main ends at 1000 us, the last event
of a rank when there are several).

Everything is deterministic: tests derive the expected values from this description.
"""
import argparse
import os
import shutil

import otf2
from otf2.enums import (GroupType, LocationType, MeasurementMode, MetricMode, MetricOccurrence,
                        Paradigm, RecorderKind, RegionRole, Type)

US = 1000  # ticks per microsecond (resolution 1e9)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--streams", type=int, default=3)
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    with otf2.writer.open(a.out, timer_resolution=10**9) as tr:
        d = tr.definitions
        main_r = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        comp = d.region("compute", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER)
        send_r = d.region("MPI_Send", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        recv_r = d.region("MPI_Recv", region_role=RegionRole.POINT2POINT, paradigm=Paradigm.MPI)
        temp = d.metric_member("coretemp/temp", "package temperature", unit="C",
                               metric_mode=MetricMode.ABSOLUTE_POINT, value_type=Type.DOUBLE)
        power = d.metric_member("rocm_smi/power", "GPU power", unit="W",
                                metric_mode=MetricMode.ABSOLUTE_POINT, value_type=Type.DOUBLE)
        cyc = d.metric_member("PAPI_TOT_CYC", "cycles", unit="#",
                              metric_mode=MetricMode.ACCUMULATED_START, value_type=Type.UINT64)
        temp_c = d.metric_class([temp], MetricOccurrence.ASYNCHRONOUS, RecorderKind.ABSTRACT)
        power_c = d.metric_class([power], MetricOccurrence.ASYNCHRONOUS, RecorderKind.ABSTRACT)
        cyc_c = d.metric_class([cyc], MetricOccurrence.SYNCHRONOUS_STRICT, RecorderKind.CPU)

        # Locations in the order Score-P defines them, per process: its master
        # thread, then its METRIC locations (so that they precede the next
        # rank's master: location index and process index differ).
        root = d.system_tree_node("machine")
        node = d.system_tree_node("node 0", parent=root)
        groups, masters = [], []
        streams = []  # (location, class)
        for r in range(a.ranks):
            g = d.location_group("MPI Rank %d" % r, system_tree_parent=node)
            groups.append(g)
            masters.append(d.location("Master thread", group=g))
            if r == 0:
                for k in range(a.streams):
                    name, cls = ("coretemp", temp_c) if k == 0 else ("rocm_smi device=%d" % (k - 1), power_c)
                    streams.append((d.location(name, type=LocationType.METRIC, group=g), cls))
            if r == a.ranks - 1:
                streams.append((d.location("coretemp rank %d" % r, type=LocationType.METRIC, group=g), temp_c))
        d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=masters)
        world = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                        members=list(range(a.ranks)))
        comm = d.comm("MPI_COMM_WORLD", group=world)

        last = a.ranks - 1
        for r, loc in enumerate(masters):
            w = tr.event_writer_from_location(loc)
            cycles = [0]

            def ev(fn, t, *args):
                fn(t * US, *args)
                if r == 0 and fn in (w.enter, w.leave):
                    cycles[0] += 1000
                    w.metric(t * US, cyc_c, [cycles[0]])
            ev(w.enter, 100, main_r)
            ev(w.enter, 200, comp)
            if r == 0 and a.ranks > 1:
                ev(w.enter, 250, send_r)
                w.mpi_send(260 * US, 1, comm, 7, 64)
                ev(w.leave, 270, send_r)
            if r == 1:
                ev(w.enter, 250, recv_r)
                w.mpi_recv(280 * US, 0, comm, 7, 64)
                ev(w.leave, 290, recv_r)
            if r == last:
                w.measurement_on_off(300 * US, MeasurementMode.OFF)
                w.measurement_on_off(600 * US, MeasurementMode.ON)
            ev(w.leave, 800, comp)
            end = 1000 if r == 0 else 900
            ev(w.leave, end, main_r)
            if r == last:
                w.measurement_on_off((end + 50) * US, MeasurementMode.OFF)
        for k, (loc, cls) in enumerate(streams):
            w = tr.event_writer_from_location(loc)
            for s in range(21):
                w.metric(s * 50 * US, cls, [40.0 + k + s / 10])


if __name__ == "__main__":
    main()
