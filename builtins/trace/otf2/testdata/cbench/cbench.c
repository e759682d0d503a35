/* cbench: read every event of an OTF2 archive with the reference C library
 * (callbacks for all record kinds the Go reader decodes) and print the
 * event count and events/s. Build:
 *   gcc -O2 -o cbench cbench.c $(otf2-config --cflags --ldflags --libs)
 * Run: cbench ANCHOR [REPEAT]
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>

static uint64_t count, checksum;

#define CB(name, ...) static OTF2_CallbackCode name(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a, __VA_ARGS__) { count++; checksum += t; return OTF2_CALLBACK_SUCCESS; }
CB(cb_enter, OTF2_RegionRef r)
CB(cb_leave, OTF2_RegionRef r)
CB(cb_send, uint32_t rcv, OTF2_CommRef c, uint32_t tag, uint64_t len)
CB(cb_recv, uint32_t snd, OTF2_CommRef c, uint32_t tag, uint64_t len)
CB(cb_isend, uint32_t rcv, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
CB(cb_irecv, uint32_t snd, OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
CB(cb_req, uint64_t req)
CB(cb_collend, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t s, uint64_t r)
CB(cb_metric, OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty, const OTF2_MetricValue *v)
static OTF2_CallbackCode cb_collbegin(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t p, void *u, OTF2_AttributeList *a) { count++; checksum += t; return OTF2_CALLBACK_SUCCESS; }

static uint64_t locs[1 << 20];
static size_t nlocs;

static OTF2_CallbackCode def_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type, uint64_t n, OTF2_LocationGroupRef g) {
    if (nlocs < sizeof locs / sizeof locs[0]) locs[nlocs++] = self;
    OTF2_Reader_SelectLocation((OTF2_Reader *)ud, self);
    return OTF2_CALLBACK_SUCCESS;
}

static double now(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts); return ts.tv_sec + ts.tv_nsec * 1e-9; }

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: cbench ANCHOR [REPEAT]\n"); return 2; }
    int repeat = argc > 2 ? atoi(argv[2]) : 1;
    double best = 1e30;
    for (int rep = 0; rep < repeat; rep++) {
        count = 0;
        nlocs = 0;
        double t0 = now();
        OTF2_Reader *rd = OTF2_Reader_Open(argv[1]);
        if (!rd) { fprintf(stderr, "cannot open %s\n", argv[1]); return 1; }
        OTF2_Reader_SetSerialCollectiveCallbacks(rd);
        OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
        OTF2_GlobalDefReaderCallbacks *gcb = OTF2_GlobalDefReaderCallbacks_New();
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, def_location);
        OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, gcb, rd);
        uint64_t ndefs;
        OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &ndefs);
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
        OTF2_Reader_OpenDefFiles(rd);
        OTF2_Reader_OpenEvtFiles(rd);
        OTF2_EvtReaderCallbacks *ecb = OTF2_EvtReaderCallbacks_New();
        OTF2_EvtReaderCallbacks_SetEnterCallback(ecb, cb_enter);
        OTF2_EvtReaderCallbacks_SetLeaveCallback(ecb, cb_leave);
        OTF2_EvtReaderCallbacks_SetMpiSendCallback(ecb, cb_send);
        OTF2_EvtReaderCallbacks_SetMpiRecvCallback(ecb, cb_recv);
        OTF2_EvtReaderCallbacks_SetMpiIsendCallback(ecb, cb_isend);
        OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(ecb, cb_irecv);
        OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(ecb, cb_req);
        OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(ecb, cb_req);
        OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(ecb, cb_collbegin);
        OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(ecb, cb_collend);
        OTF2_EvtReaderCallbacks_SetMetricCallback(ecb, cb_metric);
        for (size_t i = 0; i < nlocs; i++) {
            /* local definitions: mapping tables and clock offsets */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, locs[i]);
            if (dr) {
                uint64_t nd;
                OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &nd);
                OTF2_Reader_CloseDefReader(rd, dr);
            }
            OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(rd, locs[i]);
            OTF2_Reader_RegisterEvtCallbacks(rd, er, ecb, NULL);
            uint64_t nev;
            OTF2_Reader_ReadAllLocalEvents(rd, er, &nev);
            OTF2_Reader_CloseEvtReader(rd, er);
        }
        OTF2_EvtReaderCallbacks_Delete(ecb);
        OTF2_Reader_CloseEvtFiles(rd);
        OTF2_Reader_CloseDefFiles(rd);
        OTF2_Reader_Close(rd);
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    printf("events %llu seconds %.6f events/s %.0f checksum %llu\n", (unsigned long long)count, best, count / best, (unsigned long long)checksum);
    return 0;
}
