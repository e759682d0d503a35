/* cgen: write a large SPMD-shaped OTF2 archive with the reference C library,
 * streaming (otf2gen.py keeps every event in memory, which a 100M-event
 * trace does not fit). Per rank and iteration, 18 events: solve { compute,
 * MPI_Isend to rank+1, MPI_Irecv from rank-1, MPI_Waitall (IsendComplete,
 * IrecvRequest), MPI_Allreduce (collective begin/end) }. Build:
 *   gcc -O2 -o cgen cgen.c $(otf2-config --cflags --ldflags --libs)
 * Run: cgen DIR RANKS ITERS   (writes DIR/traces.otf2)
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c, bool final) { return OTF2_FLUSH; }
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l) { return 0; }
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

enum { R_MAIN, R_SOLVE, R_COMPUTE, R_ISEND, R_IRECV, R_WAITALL, R_ALLREDUCE, NREGIONS };
static const char *names[NREGIONS] = { "main", "solve", "compute", "MPI_Isend", "MPI_Irecv", "MPI_Waitall", "MPI_Allreduce" };

#define CHECK(x) do { OTF2_ErrorCode e_ = (x); if (e_ != OTF2_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, OTF2_Error_GetName(e_)); exit(1); } } while (0)

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: cgen DIR RANKS ITERS\n"); return 2; }
    int ranks = atoi(argv[2]);
    long iters = atol(argv[3]);
    if (ranks < 2 || iters < 1) { fprintf(stderr, "cgen: need RANKS >= 2, ITERS >= 1\n"); return 2; }
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!ar) { fprintf(stderr, "cgen: cannot open %s\n", argv[1]); return 1; }
    CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_callbacks, NULL));
    CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CHECK(OTF2_Archive_OpenEvtFiles(ar));
    uint64_t *nev = calloc(ranks, sizeof *nev);
    uint64_t tend = 0;
    for (int r = 0; r < ranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, r);
        uint64_t t = 1000 + 7 * r, n = 0, req = 1;
        CHECK(OTF2_EvtWriter_Enter(w, NULL, t, R_MAIN)); n++;
        for (long i = 0; i < iters; i++) {
            uint64_t work = 100 + (uint64_t)((i * 7919 + r * 104729) % 37);
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 10, R_SOLVE));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 5, R_COMPUTE));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += work, R_COMPUTE));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 3, R_ISEND));
            CHECK(OTF2_EvtWriter_MpiIsend(w, NULL, t += 1, (r + 1) % ranks, 0, 7, 4096, req));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 2, R_ISEND));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 3, R_IRECV));
            CHECK(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t += 1, req + 1));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 2, R_IRECV));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 3, R_WAITALL));
            CHECK(OTF2_EvtWriter_MpiIsendComplete(w, NULL, t += 4, req));
            CHECK(OTF2_EvtWriter_MpiIrecv(w, NULL, t += 4, (r + ranks - 1) % ranks, 0, 7, 4096, req + 1));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 2, R_WAITALL));
            CHECK(OTF2_EvtWriter_Enter(w, NULL, t += 3, R_ALLREDUCE));
            CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t += 1));
            CHECK(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t += 20, OTF2_COLLECTIVE_OP_ALLREDUCE, 0, OTF2_UNDEFINED_UINT32, 8, 8));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 2, R_ALLREDUCE));
            CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 5, R_SOLVE));
            n += 18;
            req += 2;
        }
        CHECK(OTF2_EvtWriter_Leave(w, NULL, t += 10, R_MAIN)); n++;
        nev[r] = n;
        if (t > tend) tend = t;
        CHECK(OTF2_Archive_CloseEvtWriter(ar, w));
    }
    CHECK(OTF2_Archive_CloseEvtFiles(ar));
    CHECK(OTF2_Archive_OpenDefFiles(ar));
    for (int r = 0; r < ranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, r);
        CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CHECK(OTF2_Archive_CloseDefFiles(ar));
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    CHECK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, tend + 1, OTF2_UNDEFINED_TIMESTAMP));
    uint32_t s = 0;
    CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, ""));
    for (int i = 0; i < NREGIONS; i++) CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, names[i]));
    uint32_t s_node = s, s_rank = s + 1, s_thread = s + 2, s_world = s + 3;
    CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, "node"));
    CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, "MPI Rank"));
    CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, "Master thread"));
    CHECK(OTF2_GlobalDefWriter_WriteString(g, s++, "MPI_COMM_WORLD"));
    for (int i = 0; i < NREGIONS; i++) {
        OTF2_Paradigm p = i >= R_ISEND ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER;
        OTF2_RegionRole role = i == R_ALLREDUCE ? OTF2_REGION_ROLE_COLL_ALL2ALL : i >= R_ISEND ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION;
        CHECK(OTF2_GlobalDefWriter_WriteRegion(g, i, 1 + i, 1 + i, 0, role, p, OTF2_REGION_FLAG_NONE, 0, 0, 0));
    }
    CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_node, s_node, OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    uint64_t *members = malloc(ranks * sizeof *members);
    for (int r = 0; r < ranks; r++) {
        char buf[64];
        snprintf(buf, sizeof buf, "MPI Rank %d", r);
        CHECK(OTF2_GlobalDefWriter_WriteString(g, s, buf));
        CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, s++, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
        CHECK(OTF2_GlobalDefWriter_WriteLocation(g, r, s_thread, OTF2_LOCATION_TYPE_CPU_THREAD, nev[r], r));
        members[r] = r;
    }
    (void)s_rank;
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteGroup(g, 1, s_world, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, members));
    CHECK(OTF2_GlobalDefWriter_WriteComm(g, 0, s_world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, g));
    CHECK(OTF2_Archive_Close(ar));
    uint64_t total = 0;
    for (int r = 0; r < ranks; r++) total += nev[r];
    printf("events %llu\n", (unsigned long long)total);
    return 0;
}
