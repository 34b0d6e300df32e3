/* rtosbench port for Mbed OS 6.17.0 through its RTOS layer: the rtos:: C++
 * classes over CMSIS-RTOS2 and RTX5 (5.5.3), built from Mbed's sources by
 * port.cmake without Mbed's tools (mbed_config.h in this directory stands for
 * the generated configuration).
 *
 *   tasks       rtos::Thread(prio, stack_size, stack_mem, name) on the
 *               harness' stack; Thread::start(mbed::callback(entry, arg))
 *   start       RTX directly: init = osKernelInitialize; start creates one
 *               boot thread (osThreadNew, above every harness priority) and
 *               calls osKernelStart. The boot thread starts the rtos::Thread
 *               objects and returns (RTX ends it): Thread::start locks the
 *               thread's rtos::Mutex, which RTX refuses before a thread runs.
 *               Mbed's own boot (mbed_boot.c, mbed_rtos_rtx.c) would run
 *               main() in its main thread after its C library and heap set-up
 *               (mbed_boot_gcc_arm.c); the harness' main() and the board's
 *               start-up own those here.
 *   semaphores  rtos::Semaphore(0, 1) / release / acquire; release on a full
 *               semaphore returns osErrorResource and leaves it full: OK
 *   from ISR    Semaphore::release from the test-timer ISR (RTX posts it to
 *               its ISR queue and pends PendSV: the switch on exit is RTX's);
 *               isr_enter/isr_exit empty (RTX needs no ISR bookkeeping)
 *   queue       rtos::Queue<uint32_t, 1>: one message slot holding a pointer;
 *               the 32-bit message travels as the pointer's value
 *               (try_put_for / try_get_for with Kernel::wait_for_u32_forever)
 *   mutex       rtos::Mutex: RTX mutex with osMutexRecursive |
 *               osMutexPrioInherit | osMutexRobust (Mutex.cpp fixes these)
 *   yield       rtos::ThisThread::yield (osThreadYield)
 *   critical    core_util_critical_section_enter/exit (PRIMASK: masks every
 *               interrupt, the test timer and the tick included; Mbed nests
 *               with its own counter, the returned state is unused)
 *   notify      thread flags (CMSIS-RTOS2 osThreadFlagsSet / osThreadFlagsWait
 *               under the rtos:: classes): Thread::flags_set(1) /
 *               ThisThread::flags_wait_any(1) (clears the flag on return);
 *               from the ISR the same flags_set (RTX posts it to its ISR
 *               queue and pends PendSV, as the semaphore's release). Binary:
 *               a flag is set or not
 *   delay       ThisThread::sleep_for(Kernel::Clock::duration_u32(ticks))
 *   tick count  Kernel::Clock::now() (1 ms = 1 tick)
 *   tick        RTX's SysTick_Handler (irq_*.S) calls osRtxTick_Handler;
 *               port.cmake renames that call in irq_*.S alone to
 *               rb_mbedos_tick_handler below: the hook, then RTX's handler
 *   idle        osRtxIdleThread (RTX_Config.c's weak one replaced; Mbed's
 *               mbed_rtx_idle.cpp, which sleeps, is not built)
 *   tickless    RB_CFG_TICKLESS: the idle thread, after the hook, calls
 *               osKernelSuspend, sleeps in WFI on SysTick reloaded for the
 *               ticks it returned, restarts SysTick in phase and calls
 *               osKernelResume(ticks slept) (rb_mbed_tickless_sleep). Mbed's
 *               own MBED_TICKLESS (mbed_rtx_idle.cpp, SysTimer) is not
 *               built: it runs the OS tick on the target's lp_ticker or
 *               us_ticker HAL driver, a timer with a compare interrupt
 *
 * No heap: every object lives in static storage (placement new); the
 * operators new[] (nothrow) and delete that Thread.cpp refers to are
 * defined here and never allocate. */
#include <stddef.h>
#include <stdint.h>

#include <new>

#include "RTX_Config.h"
#include "cmsis.h" /* SysTick, SCB (the core's CMSIS header): the tickless idle */
#include "cmsis_os2.h"
#include "platform/mbed_critical.h"
#include "platform/mbed_error.h"
#include "rtos/Kernel.h"
#include "rtos/Mutex.h"
#include "rtos/Queue.h"
#include "rtos/Semaphore.h"
#include "rtos/ThisThread.h"
#include "rtos/Thread.h"
#include "rtx_os.h"

extern "C" {
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"
#include "rtx_evr.h" /* no C++ guards of its own */
}

/* RTX keeps its guard word in stack[0] when it checks stacks (RB_CHECKS=on):
 * the harness' high-water count starts above it. */
extern "C" const uint32_t rbp_stack_reserved_words = OS_STACK_CHECK ? 1u : 0u;

/* Neutral 1..8 -> osPriorityNormal .. osPriorityNormal7 (24..31); RTX's idle
 * thread runs at osPriorityIdle (1). */
#define RB_MBED_PRIO(p) static_cast<osPriority>(osPriorityNormal + (p)-RBP_PRIO_MIN)
/* The boot thread runs above every harness task, so none runs before all
 * are started. */
#define RB_MBED_BOOT_PRIO osPriorityHigh

namespace {

/* Static storage for objects constructed in place (no heap, no static
 * constructors or destructors). */
template <typename T, int N>
struct Slots {
  alignas(T) unsigned char mem[N][sizeof(T)];
  T* at(int id) { return reinterpret_cast<T*>(mem[id]); }
};

Slots<rtos::Thread, RBP_MAX_TASKS> rb_threads;
Slots<rtos::Semaphore, RBP_MAX_SEMS> rb_sems;
Slots<rtos::Queue<uint32_t, 1>, RBP_MAX_QUEUES> rb_queues;
Slots<rtos::Mutex, RBP_MAX_MUTEXES> rb_mutexes;

struct TaskStart {
  rbp_entry_fn entry;
  void* arg;
  uint32_t* stack;
  bool made;
};
TaskStart rb_task_start[RBP_MAX_TASKS];

/* The boot thread: control block and stack (RB_STACK_WORDS, as every
 * kernel thread). */
osRtxThread_t rb_boot_cb;
uint64_t rb_boot_stack[RB_STACK_WORDS / 2];

void rb_mbed_boot(void*) {
  for (int k = 0; k < RBP_MAX_TASKS; k++) {
    TaskStart& t = rb_task_start[k];
    if (!t.made) {
      continue;
    }
    /* Thread::start fills the whole stack with RTX's magic word (Mbed's
     * stack statistics); the harness reads the high-water mark from its own
     * fill word (END stack_min_free_words), so it is put back below the
     * initial frame. RTX keeps its guard word in stack[0] only when it
     * checks stacks (OS_STACK_CHECK, RB_CHECKS=on). Creation time only. */
    const uint32_t fill = t.stack[0];
    if (rb_threads.at(k)->start(mbed::callback(t.entry, t.arg)) != osOK) {
      rb_fatal("rtos::Thread::start");
    }
    const osRtxThread_t* cb = static_cast<const osRtxThread_t*>(rb_threads.at(k)->get_id());
    uint32_t* sp = reinterpret_cast<uint32_t*>(cb->sp);
    for (uint32_t* w = t.stack + (OS_STACK_CHECK ? 1 : 0); w < sp; w++) {
      *w = fill;
    }
  }
  /* Returning ends the boot thread (RTX: osThreadExit). */
}

/* ---- Port operations ---------------------------------------------------- */

int rb_mbed_init(void) {
  return osKernelInitialize() == osOK ? RBP_OK : RBP_ERR;
}

int rb_mbed_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                        uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || rb_task_start[id].made || prio < RBP_PRIO_MIN ||
      prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  new (rb_threads.at(id)) rtos::Thread(RB_MBED_PRIO(prio), stack_words * sizeof(uint32_t),
                                       reinterpret_cast<unsigned char*>(stack), name);
  rb_task_start[id] = TaskStart{entry, arg, stack, true};
  return RBP_OK;
}

void rb_mbed_start(void) {
  osThreadAttr_t attr = {};
  attr.name = "rb_boot";
  attr.cb_mem = &rb_boot_cb;
  attr.cb_size = sizeof rb_boot_cb;
  attr.stack_mem = rb_boot_stack;
  attr.stack_size = sizeof rb_boot_stack;
  attr.priority = RB_MBED_BOOT_PRIO;
  if (osThreadNew(rb_mbed_boot, nullptr, &attr) == nullptr) {
    rb_fatal("osThreadNew (boot thread)");
  }
  /* SysTick at RB_CFG_TICK_HZ (OS_Tick_Setup, priority 0xFF), SVCall and
   * PendSV priorities (SVC_Setup), then the first thread. */
  osKernelStart();
  rb_fatal("osKernelStart returned");
}

int rb_mbed_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  new (rb_sems.at(id)) rtos::Semaphore(0, 1);
  return RBP_OK;
}

int rb_mbed_sem_give(int id) {
  const osStatus s = rb_sems.at(id)->release();
  return (s == osOK || s == osErrorResource) ? RBP_OK : RBP_ERR;
}

int rb_mbed_sem_take(int id) {
  rb_sems.at(id)->acquire(); /* a failure ends in mbed_error */
  return RBP_OK;
}

void rb_mbed_isr_nothing(void) {}

int rb_mbed_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  new (rb_queues.at(id)) rtos::Queue<uint32_t, 1>();
  return RBP_OK;
}

int rb_mbed_queue_send(int id, uint32_t msg) {
  uint32_t* as_ptr = reinterpret_cast<uint32_t*>(static_cast<uintptr_t>(msg));
  return rb_queues.at(id)->try_put_for(rtos::Kernel::wait_for_u32_forever, as_ptr) ? RBP_OK
                                                                                   : RBP_ERR;
}

int rb_mbed_queue_receive(int id, uint32_t* msg) {
  uint32_t* as_ptr = nullptr;
  if (!rb_queues.at(id)->try_get_for(rtos::Kernel::wait_for_u32_forever, &as_ptr)) {
    return RBP_ERR;
  }
  *msg = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(as_ptr));
  return RBP_OK;
}

int rb_mbed_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  new (rb_mutexes.at(id)) rtos::Mutex();
  return RBP_OK;
}

int rb_mbed_mutex_lock(int id) {
  rb_mutexes.at(id)->lock(); /* a failure ends in mbed_error */
  return RBP_OK;
}

int rb_mbed_mutex_unlock(int id) {
  rb_mutexes.at(id)->unlock();
  return RBP_OK;
}

void rb_mbed_yield(void) {
  rtos::ThisThread::yield();
}

uint32_t rb_mbed_critical_enter(void) {
  core_util_critical_section_enter();
  return 0;
}

void rb_mbed_critical_exit(uint32_t) {
  core_util_critical_section_exit();
}

void rb_mbed_delay(uint32_t ticks) {
  rtos::ThisThread::sleep_for(rtos::Kernel::Clock::duration_u32(ticks));
}

uint32_t rb_mbed_tick_count(void) {
  return static_cast<uint32_t>(rtos::Kernel::Clock::now().time_since_epoch().count());
}

/* The thread flag the notification uses (bit 31 is osFlagsError). */
constexpr uint32_t kNotifyFlag = 1u;

int rb_mbed_notify_give(int task_id) {
  return (rb_threads.at(task_id)->flags_set(kNotifyFlag) & osFlagsError) == 0u ? RBP_OK : RBP_ERR;
}

int rb_mbed_notify_take(int) {
  /* The calling thread's own flags. */
  const uint32_t r = rtos::ThisThread::flags_wait_any(kNotifyFlag);
  return (r & osFlagsError) == 0u && (r & kNotifyFlag) != 0u ? RBP_OK : RBP_ERR;
}

/* CONFIG checks=: RTX 5.5.3 validates object ids and parameters in every
 * call whatever the configuration, and the rtos:: classes test every status
 * (MBED_ERROR): "partial" unless the checks that can be switched (RTX's
 * stack check, MBED_ASSERT) are on too. */
#if OS_STACK_CHECK && !defined(NDEBUG)
#define RB_MBED_CHECKS "on"
#else
#define RB_MBED_CHECKS "partial"
#endif

#if RB_CFG_TICKLESS
/* ---- Tickless idle (RB_CFG_TICKLESS) --------------------------------------
 * RTX5's own tickless API, the CMSIS-RTOS2 pattern ("Tickless Low-Power
 * Operation"; Mbed's MBED_TICKLESS idle in mbed_rtx_idle.cpp follows it too,
 * on a HAL ticker this port does not have): the idle thread calls
 * osKernelSuspend, which blocks the scheduler, stops SysTick (os_systick.c's
 * OS_Tick_Disable clears ENABLE and keeps a tick that came due for
 * OS_Tick_Enable to pend again) and returns the ticks to the next timeout;
 * the port reloads SysTick for them, sleeps in WFI, counts the whole ticks
 * slept, restarts SysTick in the tick's phase with the periodic reload and
 * calls osKernelResume(ticks slept), which steps RTX's tick, delays and
 * timers and unblocks the scheduler (OS_Tick_Enable). SysTick stays the only
 * timebase, as in the periodic build. */
constexpr uint32_t kTickCounts = RB_CORE_HZ / RB_CFG_TICK_HZ; /* os_systick.c's LOAD + 1 */
/* The restart leaves at least this many counts before SysTick's next
 * interrupt: RTX must be resumed before it comes (the tick handler checks).
 * When the wake falls closer to a tick, that tick is counted as slept and
 * the interrupt after it is the next one: the kernel sees it early by less
 * than the margin, 1/16 of a tick. */
constexpr uint32_t kRestartMargin = kTickCounts / 16u;
constexpr uint32_t kSysTickCtrl = SysTick_CTRL_CLKSOURCE_Msk | SysTick_CTRL_TICKINT_Msk;
static_assert(2u * kTickCounts - 1u <= SysTick_LOAD_RELOAD_Msk,
              "two ticks must fit SysTick's 24 bits");

/* With RTX suspended and SysTick stopped: sleeps at most `ticks` ticks and
 * returns the whole ticks slept since RTX's last tick. SysTick's interrupt
 * comes when the counter decrements to 0 and the counter then reloads LOAD:
 * VAL counts down to the next tick (0: a whole period). The counts SysTick
 * is stopped for (the suspend and resume calls, this function's arithmetic,
 * the waking ISR) are lost to RTX's time, as FreeRTOS' default
 * vPortSuppressTicksAndSleep loses them (it subtracts a fixed compensation;
 * nothing here is subtracted). A tick that came due inside osKernelSuspend
 * (OS_Tick_Disable keeps it, OS_Tick_Enable pends it again at the resume)
 * is not seen here: VAL then counts from that tick, the sleep ends one tick
 * after the timeout and RTX's count stays right. */
uint32_t rb_mbed_tickless_sleep(uint32_t ticks) {
  const uint32_t val = SysTick->VAL;
  /* Counts to the next tick interrupt: up to two periods just after a
   * restart that counted a near tick early (kRestartMargin). */
  const uint32_t to_next = val != 0u ? val : kTickCounts;
  const uint32_t fit = (SysTick_LOAD_RELOAD_Msk + 1u - to_next) / kTickCounts + 1u;
  const uint32_t n = ticks < fit ? ticks : fit;
  const uint32_t load = to_next + (n - 1u) * kTickCounts - 1u;
  uint32_t ran = 0u; /* SysTick counts from the sleep's start */
  if (load >= kRestartMargin) {
    /* An interrupt between osKernelSuspend and here found the kernel
     * blocked and left its post-processing in kernel.pendSV (Mbed's
     * rtos_event_pending): no sleep then. WFI wakes on a pending interrupt
     * with PRIMASK set, so none is lost between the test and the sleep. */
    __disable_irq();
    SysTick->LOAD = load;
    SysTick->VAL = 0u; /* clears COUNTFLAG; reloads on the next count */
    SysTick->CTRL = kSysTickCtrl | SysTick_CTRL_ENABLE_Msk;
    if (osRtxInfo.kernel.pendSV == 0u) {
      __DSB();
      __WFI();
    }
    /* Stopped without reading CTRL, which would clear COUNTFLAG, and its
     * interrupt, if the sleep ran out, taken back (counted below): then the
     * waking interrupt runs, and no tick can while RTX is suspended. */
    SysTick->CTRL = kSysTickCtrl;
    SCB->ICSR = SCB_ICSR_PENDSTCLR_Msk;
    __enable_irq();
    __ISB();
    const uint32_t wrapped = SysTick->CTRL & SysTick_CTRL_COUNTFLAG_Msk;
    const uint32_t now = SysTick->VAL;
    ran = (now != 0u ? load + 1u - now : 0u) + (wrapped != 0u ? load + 1u : 0u);
  }
  /* Counts since RTX's last tick; negative while the kernel is ahead of
   * SysTick after an early-counted tick. */
  const int32_t since = static_cast<int32_t>(kTickCounts - to_next) + static_cast<int32_t>(ran);
  uint32_t slept = 0u;
  uint32_t next = kTickCounts + static_cast<uint32_t>(-since);
  if (since >= 0) {
    slept = static_cast<uint32_t>(since) / kTickCounts;
    next = kTickCounts - static_cast<uint32_t>(since) % kTickCounts;
  }
  if (next < kRestartMargin) {
    slept++;
    next += kTickCounts;
  }
  /* Restart in phase: the first period is what remains of the tick, then
   * the periodic reload once the counter has taken the first. */
  __disable_irq();
  SysTick->LOAD = next - 1u;
  SysTick->VAL = 0u;
  SysTick->CTRL = kSysTickCtrl | SysTick_CTRL_ENABLE_Msk;
  while (SysTick->VAL == 0u) {
  }
  SysTick->LOAD = kTickCounts - 1u;
  __enable_irq();
  return slept;
}
#endif

}  // namespace

/* ---- Hooks into RTX and Mbed's platform layer ---------------------------- */

extern "C" {

uint32_t SystemCoreClock = RB_CORE_HZ;

/* rtx_system.c; the CPU port's SysTick_Handler (irq_cm3.S, irq_cm4f.S or
 * irq_armv8mml.S) calls this wrapper instead. */
void osRtxTick_Handler(void);
void rb_mbedos_tick_handler(void) {
#if RB_CFG_TICKLESS
  /* The tickless idle keeps SysTick stopped or at least
   * kRestartMargin away from its interrupt while RTX is suspended (RTX's
   * tick handler does not look at the state and would switch threads):
   * a tick here would be the port's error, never a figure. */
  if (osRtxInfo.kernel.state == osRtxKernelSuspended) {
    rb_fatal("SysTick while RTX is suspended (tickless idle)");
  }
#endif
  rb_tick_hook();
  osRtxTick_Handler();
}

/* The idle thread (RTX_Config.c has a weak one): busy, never WFI, in a
 * periodic build; a tickless build (RB_CFG_TICKLESS) suspends RTX after each
 * pass of the hook and sleeps on SysTick (rb_mbed_tickless_sleep above). */
__NO_RETURN void osRtxIdleThread(void*) {
  for (;;) {
    rb_idle_hook();
#if RB_CFG_TICKLESS
    const uint32_t ticks = osKernelSuspend();
    osKernelResume(ticks != 0u ? rb_mbed_tickless_sleep(ticks) : 0u);
#endif
  }
}

/* RTX's error callback (RTX_Config.c has a weak one that spins; Mbed's is in
 * mbed_rtx_handlers.c, which needs mbed_error.c): every RTX error (stack
 * overflow, ISR queue overflow, ...) stops the firmware. */
uint32_t osRtxErrorNotify(uint32_t code, void*) {
  (void)code;
  rb_fatal("RTX error (osRtxErrorNotify)");
}

/* Mbed's error and assert reporting (platform/source/mbed_error.c and
 * mbed_assert.c need Mbed's console, HAL and crash-capture RAM): a failed
 * rtos:: call or MBED_ASSERT stops the firmware here. */
mbed_error_status_t mbed_error(mbed_error_status_t, const char*, unsigned int, const char*, int) {
  rb_fatal("mbed_error");
}

bool mbed_get_error_in_progress(void) {
  return false;
}

void mbed_assert_internal(const char*, const char*, int) {
  rb_fatal("MBED_ASSERT");
}

#if MBED_TRAP_ERRORS_ENABLED
/* RB_CHECKS=on: RTX's error events stop the firmware, as Mbed's debug
 * profile has them (mbed_rtx_handlers.c, MBED_TRAP_ERRORS_ENABLED): every
 * failed RTX call, a semaphore released at its limit aside (Mbed ignores
 * that one too: the count saturates). Otherwise rtx_evr.c's empty weak
 * functions stay. */
void EvrRtxKernelError(int32_t) {
  rb_fatal("RTX kernel error event");
}
void EvrRtxThreadError(osThreadId_t, int32_t) {
  rb_fatal("RTX thread error event");
}
void EvrRtxMutexError(osMutexId_t, int32_t) {
  rb_fatal("RTX mutex error event");
}
void EvrRtxSemaphoreError(osSemaphoreId_t, int32_t status) {
  if (status != osRtxErrorSemaphoreCountLimit) {
    rb_fatal("RTX semaphore error event");
  }
}
void EvrRtxMessageQueueError(osMessageQueueId_t, int32_t) {
  rb_fatal("RTX message queue error event");
}
#endif

}  // extern "C"

/* Thread.cpp refers to these for threads without a stack; every thread here
 * gets one, so nothing is ever allocated. */
void* operator new[](std::size_t, const std::nothrow_t&) noexcept {
  return nullptr;
}
void operator delete[](void*) noexcept {}
void operator delete[](void*, std::size_t) noexcept {}
void operator delete(void*) noexcept {}
void operator delete(void*, std::size_t) noexcept {}

/* No RBP_HAS_HEAP: Mbed OS has no general-purpose allocator of its own. Its
 * malloc is the toolchain's (newlib's, behind Mbed's optional statistics
 * wrappers and _sbrk over the RAM its linker script leaves), a C library
 * figure; RTX's osMemoryPool hands out blocks of one fixed size. The heap
 * test is NA (docs/kernels.md). */
extern "C" const struct rbp_ops rbp_port = {
    "mbedos",
    RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE | RBP_HAS_MUTEX |
        RBP_HAS_MUTEX_PI | RBP_HAS_TIME_SLICE | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK |
        RBP_HAS_NOTIFY,
    rb_mbed_init,
    rb_mbed_task_create,
    rb_mbed_start,
    rb_mbed_sem_create,
    rb_mbed_sem_give,
    rb_mbed_sem_take,
    rb_mbed_sem_give, /* from the ISR: the same call (see the header comment) */
    rb_mbed_isr_nothing,
    rb_mbed_isr_nothing,
    rb_mbed_queue_create,
    rb_mbed_queue_send,
    rb_mbed_queue_receive,
    rb_mbed_mutex_create,
    rb_mbed_mutex_lock,
    rb_mbed_mutex_unlock,
    rb_mbed_yield,
    rb_mbed_critical_enter,
    rb_mbed_critical_exit,
    rb_mbed_delay,
    rb_mbed_tick_count,
    RB_MBED_CHECKS,
    "generic",
    /* RBP_HAS_HEAP: not claimed (above) */
    nullptr,
    nullptr,
    nullptr,
    /* Direct task notification: thread flags (from the ISR: the same call). */
    rb_mbed_notify_give,
    rb_mbed_notify_take,
    rb_mbed_notify_give,

    /* zero_latency_prio: none, the critical section masks with PRIMASK
     * (RBP_HAS_ZERO_LATENCY_IRQ not claimed). */
    0,
};
