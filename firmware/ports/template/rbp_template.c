/* Template port: copy this directory to ports/<kernel>/, rename the file,
 * implement each operation with the kernel's API and set the capability
 * flags of what works (docs/porting.md walks through it). Until then every
 * operation fails and caps is 0, so the harness runs only the ruler and
 * reports every other test NA: a port never produces a number for something
 * it does not implement.
 *
 * Conventions (rb_port.h has the full contract):
 * - IDs are small integers; keep the kernel objects in static arrays.
 * - Priorities: map RBP_PRIO_MIN..RBP_PRIO_MAX (1..8, 8 highest) onto the
 *   kernel's scale, keeping equal values equal.
 * - Stacks come from the harness (RB_STACK_WORDS words); do not allocate.
 * - start(): configure SysTick for RB_CFG_TICK_HZ from RB_CORE_HZ (or let
 *   the kernel do it), SysTick and PendSV at priority RB_TICK_PRIO (15), and
 *   call rb_tick_hook() on every tick and rb_idle_hook() from the idle loop.
 */
#include <stdint.h>

#include "rb_build_config.h"
#include "rb_port.h"

static int template_init(void) {
  return RBP_ERR;
}

static int template_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                                uint32_t* stack, uint32_t stack_words) {
  (void)id;
  (void)name;
  (void)entry;
  (void)arg;
  (void)prio;
  (void)stack;
  (void)stack_words;
  return RBP_ERR;
}

static void template_start(void) {
  rb_fatal("template: start() is not implemented");
}

static int template_sem_create(int id) {
  (void)id;
  return RBP_ERR;
}

static int template_sem_op(int id) {
  (void)id;
  return RBP_ERR;
}

const struct rbp_ops rbp_port = {
    .kernel = "template",
    /* Add RBP_HAS_* flags as the operations are implemented. */
    .caps = 0,
    .init = template_init,
    .task_create = template_task_create,
    .start = template_start,
    .sem_create = template_sem_create,
    .sem_give = template_sem_op,
    .sem_take = template_sem_op,
    /* NULL until implemented: sem_give_from_isr, isr_enter, isr_exit,
     * queue_*, mutex_*, yield, critical_enter/exit, delay, tick_count. */
    /* CONFIG checks= and lookup= (docs/porting.md): derive them from the
     * kernel's own configuration macros, which the kernel's config header
     * sets from RB_CFG_CHECKS (API argument checks and asserts: off by
     * default, on with RB_CHECKS=on; "partial" when some cannot be compiled
     * out), and say whether the ready-task lookup uses the CPU's CLZ. With no
     * kernel behind it the template has neither. */
    .checks = "none",
    .lookup = "none",
    /* Direct task notification (RBP_HAS_NOTIFY; rb_port.h, docs/porting.md),
     * only where the kernel's public API has a signal kept in the task itself
     * (FreeRTOS xTaskNotifyGive / ulTaskNotifyTake / vTaskNotifyGiveFromISR);
     * else leave the flag out and say why in docs/kernels.md. NULL until
     * implemented: notify_give(task_id), notify_take(self_id),
     * notify_give_from_isr(task_id), task IDs as given to task_create. */
};
