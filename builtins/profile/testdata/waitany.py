#!/usr/bin/python3
"""Writes testdata/waitany/, an OTF2 trace (reference library, Debian python3-otf2)
of two ranks where receives complete out of posting order and requests are
cancelled (issue 31, finding 4). Run from this folder: /usr/bin/python3 waitany.py

rank 0 posts an MPI_Isend of 50 B and cancels it, then sends 100 B and 200 B
(tag 5, MPI_Send) and an MPI_Isend of 300 B with tag 6.
rank 1 posts four MPI_Irecv (requests 1-4), MPI_Waitany completes them as
3 (200 B), 4 (300 B, tag 6), 1 (100 B), and request 2 is cancelled.

By MPI's non-overtaking rule the 100 B send is received by request 1 (posted
first), the 200 B send by request 3; the cancelled send and receive take no
part. OTF2 writes MpiIrecv at completion, so completion order pairs the 50 B
(cancelled) send with request 3.
"""
import os
import shutil

import otf2
from otf2.enums import GroupType, Paradigm, RegionRole

out = "waitany"
if os.path.exists(out):
    shutil.rmtree(out)
with otf2.writer.open(out, timer_resolution=1_000_000_000) as tr:
    d = tr.definitions
    root = d.system_tree_node("machine")
    ranks = [d.location("Master thread", group=d.location_group("MPI Rank %d" % r, system_tree_parent=root)) for r in range(2)]
    d.group("MPI locations", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=ranks)
    world = d.group("MPI_COMM_WORLD group", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[0, 1])
    comm = d.comm("MPI_COMM_WORLD", group=world)
    regions = {}

    def region(name):
        if name not in regions:
            role = RegionRole.POINT2POINT if name.startswith("MPI_") else RegionRole.FUNCTION
            regions[name] = d.region(name, region_role=role, paradigm=Paradigm.MPI if name.startswith("MPI_") else Paradigm.USER)
        return regions[name]

    def call(w, name, t0, t1, record=None):
        w.enter(t0, region(name))
        if record:
            record()
        w.leave(t1, region(name))

    w = tr.event_writer_from_location(ranks[0])
    w.enter(0, region("main"))
    call(w, "MPI_Isend", 5, 7, lambda: w.mpi_isend(6, 1, comm, 5, 50, 7))
    call(w, "MPI_Cancel", 8, 10, lambda: w.mpi_request_cancelled(9, 7))
    call(w, "MPI_Send", 11, 13, lambda: w.mpi_send(12, 1, comm, 5, 100))
    call(w, "MPI_Send", 20, 22, lambda: w.mpi_send(21, 1, comm, 5, 200))
    call(w, "MPI_Isend", 25, 27, lambda: w.mpi_isend(26, 1, comm, 6, 300, 8))
    call(w, "MPI_Wait", 38, 41, lambda: w.mpi_isend_complete(40, 8))
    w.leave(50, region("main"))

    w = tr.event_writer_from_location(ranks[1])
    w.enter(0, region("main"))
    for req in range(1, 5):
        call(w, "MPI_Irecv", 2 * req, 2 * req + 1, lambda: w.mpi_irecv_request(2 * req, req))
    call(w, "MPI_Waitany", 29, 31, lambda: w.mpi_irecv(30, 0, comm, 5, 200, 3))
    call(w, "MPI_Waitany", 32, 34, lambda: w.mpi_irecv(33, 0, comm, 6, 300, 4))
    call(w, "MPI_Waitany", 35, 37, lambda: w.mpi_irecv(36, 0, comm, 5, 100, 1))
    call(w, "MPI_Cancel", 42, 44, lambda: w.mpi_request_cancelled(43, 2))
    w.leave(50, region("main"))
