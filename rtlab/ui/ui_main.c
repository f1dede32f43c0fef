/* TEMPORARY placeholder, replaced by the real UI. */
#include "ui.h"
int ui_main(void) { return 1; }
