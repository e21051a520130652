/* bench_gpu_paper — a gate at the head of a stream, so that timed runs are
 * queued before the GPU starts them.
 *
 * A kernel of a few microseconds takes about as long to launch: timed one
 * by one between events, the GPU would sit idle after each start event
 * waiting for the host's next launch, and the idle time would count.  So
 * the stream is first held by a kernel that spins on a flag in mapped host
 * memory; the timed runs and their events are queued behind it; opening the
 * gate releases them back to back (the technique of NVIDIA's nvbench). */
#ifndef HL_BENCH_GPU_PAPER_GATE_H
#define HL_BENCH_GPU_PAPER_GATE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Timed runs queued behind one closing of the gate, at most: a queue of
 * a few hundred commands never fills the driver's, which would block the
 * host before it opens the gate. */
#define GP_GATE_BATCH 32

typedef struct gp_gate gp_gate;

/* 0, or a cudaError_t. */
int gp_gate_create(gp_gate **gate);
/* Queues the holding kernel on stream (a cudaStream_t). */
int gp_gate_close(gp_gate *gate, void *stream);
void gp_gate_open(gp_gate *gate);
/* After the stream was synchronised: whether the holding kernel gave up
 * (after 2 s) before the gate opened, so that gaps may have been timed. */
int gp_gate_timed_out(const gp_gate *gate);
void gp_gate_destroy(gp_gate *gate);

#ifdef __cplusplus
}
#endif

#endif
