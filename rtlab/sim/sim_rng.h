/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_rng: the only source of randomness a simulator may use.
 *
 * xoshiro256** (Blackman and Vigna, 2018) seeded through splitmix64. Both are
 * tiny, fast (a few cycles per number, no division on the common path) and
 * fully specified, so the same seed gives the same numbers on every machine
 * and compiler: a golden test pins the first outputs. libc's rand() and
 * random() are not allowed in models: their sequences differ between C
 * libraries and they keep hidden global state.
 *
 * A generator is plain data (32 bytes) that lives in the model's state; the
 * inline functions below are meant for hot loops. Nothing here allocates,
 * reads a clock or touches a global.
 *
 * Streams: sim_rng_seed_stream() gives a separate generator per node,
 * process or task from one seed, so that adding a consumer of random
 * numbers to one stream does not shift the numbers another stream sees,
 * and a golden scenario stays golden when an unrelated part changes.
 */
#ifndef RTLAB_SIM_SIM_RNG_H
#define RTLAB_SIM_SIM_RNG_H

#include <stdbool.h>
#include <stdint.h>

struct sim_rng {
	uint64_t s[4];	/* never all zero */
};

/**
 * sim_splitmix64 - one step of splitmix64
 * @x: the generator's counter, advanced by the golden gamma
 *
 * Returns the next output. Used to seed xoshiro256** and to hash seeds.
 */
static inline uint64_t sim_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/**
 * sim_rng_seed - seed @r from a 64-bit seed
 *
 * Every seed, 0 included, gives a valid and different generator: the four
 * state words are four splitmix64 outputs of @seed. Inline, so that a
 * program that has only this header (the hypervisor exercise's subject)
 * can seed a generator too.
 */
static inline void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = sim_splitmix64(&x);
	/*
	 * splitmix64's output function is a bijection of distinct counters, so
	 * at most one of the four words is zero: the state is never all zero.
	 */
}

/**
 * sim_rng_seed_stream - seed @r as stream @stream of @seed
 *
 * @seed and @stream are hashed into the seed of sim_rng_seed(), so stream 0
 * is not the generator of sim_rng_seed(@seed). For one @seed, different
 * streams always get different seeds (the hash of @stream is a bijection),
 * hence generators whose sequences are statistically independent.
 */
void sim_rng_seed_stream(struct sim_rng *r, uint64_t seed, uint64_t stream);

static inline uint64_t sim_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* sim_rng_next - the next 64 uniformly distributed bits */
static inline uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = sim_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sim_rng_rotl(s[3], 45);
	return out;
}

/* High 64 bits of a 64 x 64 bit product, the same on every target. */
static inline uint64_t sim_rng_mulhi(uint64_t a, uint64_t b, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 m = (unsigned __int128)a * b;

	*lo = (uint64_t)m;
	return (uint64_t)(m >> 64);
#else
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);

	*lo = (mid << 32) | (ll & 0xffffffffu);
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/**
 * sim_rng_below - a uniform integer in [0, @n)
 *
 * Exactly uniform (Lemire's multiply-and-reject: no modulo bias), and
 * almost always one sim_rng_next(). @n == 0 returns 0 and draws nothing.
 */
static inline uint64_t sim_rng_below(struct sim_rng *r, uint64_t n)
{
	uint64_t lo, hi;

	if (n == 0)
		return 0;
	hi = sim_rng_mulhi(sim_rng_next(r), n, &lo);
	if (lo < n) {
		uint64_t floor = -n % n;	/* 2^64 mod n */

		while (lo < floor)
			hi = sim_rng_mulhi(sim_rng_next(r), n, &lo);
	}
	return hi;
}

/**
 * sim_rng_range - a uniform integer in [@lo, @hi], both included
 *
 * @lo must not be above @hi (then @lo is returned and nothing is drawn).
 */
static inline uint64_t sim_rng_range(struct sim_rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	if (hi - lo == UINT64_MAX)
		return sim_rng_next(r);
	return lo + sim_rng_below(r, hi - lo + 1);
}

/* sim_rng_chance - true with probability @ppm parts per million (>= 1000000: always) */
static inline bool sim_rng_chance(struct sim_rng *r, uint32_t ppm)
{
	return sim_rng_below(r, 1000000u) < ppm;
}

/*
 * sim_rng_unit - a double in [0, 1) with 53 random bits. IEEE arithmetic on
 * integers below 2^53 is exact, so this is as reproducible as the integers;
 * prefer integer time in models all the same.
 */
static inline double sim_rng_unit(struct sim_rng *r)
{
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

#endif /* RTLAB_SIM_SIM_RNG_H */
