/* Defaults of the port's optional declarations (rb_port.h), weak so a port
 * that defines one wins at the link. In a file of their own: a compiler that
 * saw a weak constant's value where it is read could fold it, and the port's
 * definition would then be ignored. */
#include "rb_port.h"

/* Nothing reserved at a stack's bottom: the count starts at its first word. */
__attribute__((weak)) const uint32_t rbp_stack_reserved_words = 0;
/* The harness' stacks are the tasks' stacks. */
__attribute__((weak)) const char* const rbp_stack_unseen = 0;
