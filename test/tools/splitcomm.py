#!/usr/bin/python3
"""Write a small MPI trace with split communicators with the OTF2 reference library.

The shape of an sst-macro MPI test (issue 32, point 4): MPI_COMM_WORLD is split into
an even and an odd communicator that share one name, point-to-point messages and
collectives run in the split communicators with communicator-local ranks (rank 1 of
the odd communicator is world rank 3), plus a message and a broadcast in
MPI_COMM_WORLD. Also: regions defined but never entered, a two-node system tree,
MPI_COMM_SELF, and a metric class of an integer counter and a float gauge recorded
around every compute phase, so that an export must keep every kind of definition.

    /usr/bin/python3 test/tools/splitcomm.py --out test/data/split-comm

The builtins/trace export test reads the committed output (a few kB).
"""
import argparse
import os
import shutil

import otf2
from otf2.enums import (CollectiveOp, GroupType, MetricMode, MetricType, Paradigm, RegionRole,
                        Type, GroupFlag)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="archive directory (replaced)")
    ap.add_argument("--procs", type=int, default=8, help="world size (even)")
    ap.add_argument("--iters", type=int, default=6)
    args = ap.parse_args()
    n = args.procs
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    unit = 1000  # ticks, resolution 1e9: 1 us
    with otf2.writer.open(args.out, timer_resolution=10 ** 9) as tr:
        d = tr.definitions
        regions = {}

        def region(name, paradigm=Paradigm.USER, role=RegionRole.FUNCTION):
            if name not in regions:
                regions[name] = d.region(name, region_role=role, paradigm=paradigm)
            return regions[name]

        for name in ("main", "compute", "exchange"):
            region(name)
        for name in ("MPI_Init", "MPI_Finalize", "MPI_Comm_split", "MPI_Send", "MPI_Recv"):
            region(name, Paradigm.MPI)
        region("MPI_Allreduce", Paradigm.MPI, RegionRole.COLL_ALL2ALL)
        region("MPI_Bcast", Paradigm.MPI, RegionRole.COLL_ONE2ALL)
        for name in ("never_called", "checkpoint", "MPI_Alltoall"):  # defined, never entered
            region(name, Paradigm.MPI if name.startswith("MPI") else Paradigm.USER)

        machine = d.system_tree_node("machine")
        nodes = [d.system_tree_node("node %d" % i, parent=machine) for i in range(2)]
        locs = []
        for r in range(n):
            g = d.location_group("MPI Rank %d" % r, system_tree_parent=nodes[r * 2 // n])
            locs.append(d.location("Master thread", group=g))
        d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
        world_g = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                          members=list(range(n)))
        even_g = d.group("even", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                         members=list(range(0, n, 2)))
        odd_g = d.group("odd", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                        members=list(range(1, n, 2)))
        self_g = d.group("self", group_type=GroupType.COMM_SELF, paradigm=Paradigm.MPI, members=[])
        world = d.comm("MPI_COMM_WORLD", group=world_g)
        split = [d.comm("MPI_COMM_WORLD split", group=even_g, parent=world),
                 d.comm("MPI_COMM_WORLD split", group=odd_g, parent=world)]
        d.comm("MPI_COMM_SELF", group=self_g)

        cycles = d.metric_member("PAPI_TOT_CYC", "total cycles", MetricType.PAPI, MetricMode.ACCUMULATED_START,
                                 Type.UINT64, unit="#")
        power = d.metric_member("power", "package power", MetricType.OTHER, MetricMode.ABSOLUTE_POINT,
                                Type.DOUBLE, unit="W")
        mclass = d.metric_class([cycles, power])

        half = n // 2
        for r in range(n):
            w = tr.event_writer_from_location(locs[r])
            comm, local = split[r % 2], r // 2
            t = r * 7 * unit
            cyc = 0

            def call(name, dur):
                nonlocal t
                w.enter(t, region(name))
                t += dur
                w.leave(t, region(name))

            w.enter(t, region("main"))
            t += unit
            call("MPI_Init", 400 * unit)
            call("MPI_Comm_split", 5 * unit)
            for it in range(args.iters):
                w.enter(t, region("compute"))
                w.metric(t, mclass, [cyc, 40.0 + r])
                dur = (20 + 3 * (r % 3) + it) * unit
                t += dur
                cyc += dur * 3
                w.metric(t, mclass, [cyc, 55.5 + r + it / 4])
                w.leave(t, region("compute"))
                w.enter(t, region("exchange"))
                # ring in the split communicator, communicator-local ranks
                right, left = (local + 1) % half, (local - 1) % half
                order = [("MPI_Send", right), ("MPI_Recv", left)] if local % 2 == 0 else \
                        [("MPI_Recv", left), ("MPI_Send", right)]
                for name, peer in order:
                    w.enter(t, region(name))
                    t += unit
                    if name == "MPI_Send":
                        w.mpi_send(t, peer, comm, it, 1024 * (1 + local))
                    else:
                        w.mpi_recv(t, peer, comm, it, 1024 * (1 + peer))
                    t += unit
                    w.leave(t, region(name))
                # world rank 1 (local rank 0 of the odd communicator) tells world rank 0
                if r == 1:
                    w.enter(t, region("MPI_Send"))
                    w.mpi_send(t + unit, 0, world, 99, 8)
                    t += 2 * unit
                    w.leave(t, region("MPI_Send"))
                elif r == 0:
                    w.enter(t, region("MPI_Recv"))
                    w.mpi_recv(t + unit, 1, world, 99, 8)
                    t += 2 * unit
                    w.leave(t, region("MPI_Recv"))
                w.leave(t, region("exchange"))
                w.enter(t, region("MPI_Allreduce"))
                w.mpi_collective_begin(t)
                t += 4 * unit
                w.mpi_collective_end(t, CollectiveOp.ALLREDUCE, comm, 0xFFFFFFFF, 8, 8)
                w.leave(t, region("MPI_Allreduce"))
            # a broadcast in the odd communicator from its local rank 1 (world rank 3)
            w.enter(t, region("MPI_Bcast"))
            w.mpi_collective_begin(t)
            t += 3 * unit
            w.mpi_collective_end(t, CollectiveOp.BCAST, comm, 1, 64 if local == 1 else 0, 64)
            w.leave(t, region("MPI_Bcast"))
            call("MPI_Finalize", 30 * unit)
            w.leave(t, region("main"))


if __name__ == "__main__":
    main()
