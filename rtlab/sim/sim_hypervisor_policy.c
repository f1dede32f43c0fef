/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sim_hypervisor_policy: the reference boost policy of the hypervisor model, built
 * from the exercise's reference solution itself
 * (labs/hypervisor/reference/hv_boost.c) so that the lab's pv-hint
 * scenarios and the exercise's 100 % run the same code. The Makefile adds
 * labs/hypervisor/checks to the quote-include path for hv_boost.h.
 */
#include "sim_hypervisor.h"

#define hv_boost sim_hypervisor_policy_reference
#include "../../labs/hypervisor/reference/hv_boost.c"
