/* TEMPORARY placeholder, replaced by the real doctor. */
#include "cli.h"
static int doctor_main(const struct cli_cmd *cmd, int argc, char **argv) { (void)cmd; (void)argc; (void)argv; return 1; }
const struct cli_cmd cli_cmd_doctor = { .name = "doctor", .usage = "[--json]", .summary = "x", .own_journal = true, .main = doctor_main };
