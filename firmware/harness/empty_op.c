/* The ruler's empty operation, in its own translation unit so the compiler
 * cannot inline it: ruler_loop calls it exactly as a test calls a port
 * operation (function pointer loaded from a const table in flash). */
#include "rb_harness.h"

static int rb_empty_op(int id) {
  (void)id;
  return RBP_OK;
}

const struct rb_empty_table rb_empty_table = {rb_empty_op};
