/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * result-answer: a test tool that gives a results document other answers and
 * seals it again, as if `rtlab lab answer` had recorded them before the run.
 *
 *   result-answer IN OUT ID=ANSWER...
 *
 * The VM tests grade one hunt under several diagnoses without running the
 * guest once per diagnosis; a hand edit (jq) would fail the integrity check,
 * which is what the grader is for. Not installed, not for learners.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rt_result.h"

int main(int argc, char **argv)
{
	struct rt_result *res = NULL;
	char *cause = NULL;
	int i;

	if (argc < 4) {
		fprintf(stderr, "usage: result-answer IN OUT ID=ANSWER...\n");
		return 2;
	}
	if (rt_result_read(argv[1], NULL, &res, &cause)) {
		fprintf(stderr, "result-answer: %s\n", cause ? cause : argv[1]);
		free(cause);
		return 1;
	}
	for (i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || eq == argv[i]) {
			fprintf(stderr, "result-answer: %s: want ID=ANSWER\n", argv[i]);
			rt_result_free(res);
			return 2;
		}
		*eq = '\0';
		if (rt_result_set_answer_str(res, argv[i], eq + 1)) {
			fprintf(stderr, "result-answer: cannot set answer %s\n", argv[i]);
			rt_result_free(res);
			return 1;
		}
	}
	if (rt_result_write(res, argv[2], &cause)) {
		fprintf(stderr, "result-answer: %s\n", cause ? cause : argv[2]);
		free(cause);
		rt_result_free(res);
		return 1;
	}
	rt_result_free(res);
	return 0;
}
