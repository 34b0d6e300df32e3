/* Workers: every task but ctl waits on its start semaphore, runs the role
 * ctl handed it, signals done and waits again. Starting and joining go
 * through the port's semaphores, outside every measurement window. */
#include "rb_harness.h"

static rb_role_fn volatile rb_roles[RB_TASKS];

void rb_worker_main(void* arg) {
  const int me = (int)(intptr_t)arg;
  rb_fpu_touch();
  for (;;) {
    rb_check(rbp_port.sem_take(RB_S_START0 + me), "worker: take start");
    rb_role_fn role = rb_roles[me];
    if (role != 0) {
      role();
    }
    rb_check(rbp_port.sem_give(RB_S_DONE0 + me), "worker: give done");
  }
}

uint32_t rb_bg_base; /* rb_bg_ticks_begin (rb_harness.h) */

void rb_team_start(int task, rb_role_fn role) {
  rb_roles[task] = role;
  rb_check(rbp_port.sem_give(RB_S_START0 + task), "team: give start");
}

void rb_team_join(int task) {
  rb_check(rbp_port.sem_take(RB_S_DONE0 + task), "team: take done");
}

void rb_quiesce(void) {
  if (rbp_port.caps & RBP_HAS_IDLE_HOOK) {
    /* The idle task runs only when every other task is blocked. */
    const uint32_t seen = rb_idle_passes;
    do {
      rbp_port.delay(1);
    } while (rb_idle_passes == seen);
  } else {
    rbp_port.delay(2);
  }
}
