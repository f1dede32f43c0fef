/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_models: the table of every model, for the contract's generic tests
 * (tests/unit/test_sim.c) and the benchmark (bench/sim_bench.c). Labs name
 * their model directly; this table is what makes a new model get the
 * contract's checks without writing them again. Adding a model is one line.
 */
#include "sim.h"

#include <stddef.h>

#include "sim_cookie.h"
#include "sim_example.h"
#include "sim_fcse.h"
#include "sim_nop.h"
#include "sim_hv.h"

const struct sim_model_ops *const sim_models[] = {
	&sim_example_model,
	&sim_fcse_model,
	&sim_cookie_model,
	&sim_nop_model,
	&sim_hv_model,
	NULL,
};
