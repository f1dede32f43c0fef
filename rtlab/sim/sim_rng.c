/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_rng: seeding of the simulators' generator. The generator itself is
 * inline in sim_rng.h, for the models' hot loops.
 */
#include "sim_rng.h"

void sim_rng_seed_stream(struct sim_rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t a = seed, b = stream ^ UINT64_C(0x5851f42d4c957f2d);
	uint64_t x = sim_splitmix64(&a) ^ sim_rng_rotl(sim_splitmix64(&b), 32);

	sim_rng_seed(r, x);
}
