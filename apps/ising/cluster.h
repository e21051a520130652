/* hyperlayout Ising — cluster updates (Wolff, Swendsen-Wang), internal to
 * apps/ising.  ising_sweep (sweep.c) hands a lattice whose dynamics is
 * ISING_WOLFF or ISING_SW to ising_cluster_sweep; see ising.h for what a
 * sweep of each is and which random numbers it draws. */
#ifndef ISING_CLUSTER_H
#define ISING_CLUSTER_H

#include <stdint.h>

#include "ising.h"

struct ising;

/* The work space of a lattice's cluster updates (built on the first
 * cluster sweep, freed with the lattice). */
typedef struct ising_cluster ising_cluster;

/* `count` cluster sweeps of the lattice's dynamics (Wolff or SW), with M and
 * B after each as ising_sweep. */
hl_status ising_cluster_sweep(struct ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds);

void ising_cluster_free(ising_cluster *c);

/* Tests: 1 makes the updates find neighbours through the k-index site by
 * site (what lattices too large for a neighbour table do), 0 through the
 * table (the default).  Results are the same. */
hl_status ising_cluster_set_direct(struct ising *is, int direct);

/* Tests: one Wolff cluster flip grown from logical site `seed_site` with the
 * random numbers of generator state `state` (4 words, advanced), on the
 * lattice's spins; *size receives the cluster's size.  With p_add = 1 the
 * cluster is exactly the connected like-spin cluster of the seed. */
hl_status ising_wolff_flip(struct ising *is, int64_t seed_site, uint64_t state[4], int64_t *size);

/* The probability 1 - exp(-2 beta) that an aligned bond joins a cluster. */
double ising_cluster_padd(double beta);

#endif
