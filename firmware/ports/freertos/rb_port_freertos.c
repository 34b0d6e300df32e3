/* rtosbench port for FreeRTOS (FreeRTOS-Kernel V10.5.1, ARM_CM4F GCC port).
 *
 * Every harness operation is one FreeRTOS API call:
 *   semaphores  xSemaphoreCreateBinary / xSemaphoreGive / xSemaphoreTake
 *   from ISR    xSemaphoreGiveFromISR + portYIELD_FROM_ISR (PendSV on exit)
 *   queue       xQueueCreate(1, 4) / xQueueSend / xQueueReceive
 *   mutex       xSemaphoreCreateMutex / xSemaphoreTake / xSemaphoreGive
 *               (FreeRTOS mutexes inherit priority)
 *   yield       taskYIELD
 *   critical    taskENTER_CRITICAL / taskEXIT_CRITICAL (BASEPRI, nesting
 *               counted by the kernel)
 *   notify      xTaskNotifyGive / ulTaskNotifyTake(pdTRUE, portMAX_DELAY) /
 *               vTaskNotifyGiveFromISR + portYIELD_FROM_ISR, on notification
 *               index 0 (configUSE_TASK_NOTIFICATIONS). The give increments
 *               the task's notification value; the take with pdTRUE clears
 *               it to 0 on return: a counting give, a binary take (the
 *               "lightweight binary semaphore" use of FreeRTOS' manual)
 * Tasks are created statically on the harness' stacks; semaphores, the queue
 * and the mutexes come from heap_4 (the seed's allocator). The idle and
 * timer-service tasks get 512-word stacks like every other task. */
#include "FreeRTOS.h"
#include "queue.h"
#include "rb_port.h"
#include "semphr.h"
#include "task.h"

static StaticTask_t rb_frt_tcb[RBP_MAX_TASKS];
static TaskHandle_t rb_frt_task[RBP_MAX_TASKS];
static SemaphoreHandle_t rb_frt_sem[RBP_MAX_SEMS];
static QueueHandle_t rb_frt_queue[RBP_MAX_QUEUES];
static SemaphoreHandle_t rb_frt_mutex[RBP_MAX_MUTEXES];

/* ---- Kernel callbacks --------------------------------------------------- */

static StaticTask_t rb_frt_idle_tcb;
static StackType_t rb_frt_idle_stack[RB_STACK_WORDS] __attribute__((aligned(8)));
static StaticTask_t rb_frt_timer_tcb;
static StackType_t rb_frt_timer_stack[RB_STACK_WORDS] __attribute__((aligned(8)));

void vApplicationGetIdleTaskMemory(StaticTask_t** tcb, StackType_t** stack, uint32_t* words) {
  *tcb = &rb_frt_idle_tcb;
  *stack = rb_frt_idle_stack;
  *words = RB_STACK_WORDS;
}

void vApplicationGetTimerTaskMemory(StaticTask_t** tcb, StackType_t** stack, uint32_t* words) {
  *tcb = &rb_frt_timer_tcb;
  *stack = rb_frt_timer_stack;
  *words = RB_STACK_WORDS;
}

/* Runs on every pass of the idle task's loop, which never sleeps. */
void vApplicationIdleHook(void) {
  rb_idle_hook();
}

/* Runs inside xTaskIncrementTick, in the SysTick handler. */
void vApplicationTickHook(void) {
  rb_tick_hook();
}

/* ---- Port operations ---------------------------------------------------- */

static int rb_frt_init(void) {
  return RBP_OK;
}

static int rb_frt_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                              uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  TaskHandle_t h = xTaskCreateStatic(entry, name, stack_words, arg, (UBaseType_t)prio,
                                     (StackType_t*)stack, &rb_frt_tcb[id]);
  rb_frt_task[id] = h;
  return h != NULL ? RBP_OK : RBP_ERR;
}

static void rb_frt_start(void) {
  /* Programs SysTick (configCPU_CLOCK_HZ / configTICK_RATE_HZ) and the
   * SysTick/PendSV priorities, then starts the first task. */
  vTaskStartScheduler();
}

static int rb_frt_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  rb_frt_sem[id] = xSemaphoreCreateBinary(); /* created empty */
  return rb_frt_sem[id] != NULL ? RBP_OK : RBP_ERR;
}

static int rb_frt_sem_give(int id) {
  /* pdFAIL only means the semaphore was already full: it stays full, which
   * is what the port API asks of a binary semaphore. */
  (void)xSemaphoreGive(rb_frt_sem[id]);
  return RBP_OK;
}

static int rb_frt_sem_take(int id) {
  return xSemaphoreTake(rb_frt_sem[id], portMAX_DELAY) == pdTRUE ? RBP_OK : RBP_ERR;
}

static int rb_frt_sem_give_from_isr(int id) {
  BaseType_t woken = pdFALSE;
  (void)xSemaphoreGiveFromISR(rb_frt_sem[id], &woken); /* full stays full, as above */
  portYIELD_FROM_ISR(woken);
  return RBP_OK;
}

/* FreeRTOS needs no bookkeeping at ISR entry and exit. */
static void rb_frt_isr_nothing(void) {}

static int rb_frt_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  rb_frt_queue[id] = xQueueCreate(1, sizeof(uint32_t));
  return rb_frt_queue[id] != NULL ? RBP_OK : RBP_ERR;
}

static int rb_frt_queue_send(int id, uint32_t msg) {
  return xQueueSend(rb_frt_queue[id], &msg, portMAX_DELAY) == pdTRUE ? RBP_OK : RBP_ERR;
}

static int rb_frt_queue_receive(int id, uint32_t* msg) {
  return xQueueReceive(rb_frt_queue[id], msg, portMAX_DELAY) == pdTRUE ? RBP_OK : RBP_ERR;
}

static int rb_frt_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  rb_frt_mutex[id] = xSemaphoreCreateMutex();
  return rb_frt_mutex[id] != NULL ? RBP_OK : RBP_ERR;
}

static int rb_frt_mutex_lock(int id) {
  return xSemaphoreTake(rb_frt_mutex[id], portMAX_DELAY) == pdTRUE ? RBP_OK : RBP_ERR;
}

static int rb_frt_mutex_unlock(int id) {
  return xSemaphoreGive(rb_frt_mutex[id]) == pdTRUE ? RBP_OK : RBP_ERR;
}

static void rb_frt_yield(void) {
  taskYIELD();
}

static uint32_t rb_frt_critical_enter(void) {
  taskENTER_CRITICAL(); /* the kernel counts the nesting itself */
  return 0;
}

static void rb_frt_critical_exit(uint32_t state) {
  (void)state;
  taskEXIT_CRITICAL();
}

static void rb_frt_delay(uint32_t ticks) {
  vTaskDelay((TickType_t)ticks);
}

static uint32_t rb_frt_tick_count(void) {
  return (uint32_t)xTaskGetTickCount();
}

/* ---- Heap (RBP_HAS_HEAP): heap_4 itself ---------------------------------
 * heap_4 is FreeRTOS' allocator and the seed's; its one arena (ucHeap,
 * configTOTAL_HEAP_SIZE) also holds the semaphores, queue and mutexes created
 * at boot, so it is RB_HEAP_BYTES plus their 3072 bytes. heap_4 aligns every
 * block to portBYTE_ALIGNMENT (8). vPortGetHeapStats walks the free list:
 * free bytes and the largest free block both count heap_4's 8-byte block
 * headers. */
static void* rb_frt_heap_alloc(uint32_t bytes) {
  return pvPortMalloc((size_t)bytes);
}

static int rb_frt_heap_free(void* block) {
  vPortFree(block);
  return RBP_OK;
}

static int rb_frt_heap_stats(struct rbp_heap_stats* s) {
  HeapStats_t h;
  vPortGetHeapStats(&h);
  s->arena_bytes = (uint32_t)configTOTAL_HEAP_SIZE;
  s->free_bytes = (uint32_t)h.xAvailableHeapSpaceInBytes;
  s->largest_free = (uint32_t)h.xSizeOfLargestFreeBlockInBytes;
  return RBP_OK;
}

#if configUSE_TASK_NOTIFICATIONS
static int rb_frt_notify_give(int task_id) {
  (void)xTaskNotifyGive(rb_frt_task[task_id]); /* always pdPASS */
  return RBP_OK;
}

static int rb_frt_notify_take(int self_id) {
  (void)self_id; /* the calling task's own notification */
  return ulTaskNotifyTake(pdTRUE, portMAX_DELAY) != 0u ? RBP_OK : RBP_ERR;
}

static int rb_frt_notify_give_from_isr(int task_id) {
  BaseType_t woken = pdFALSE;
  vTaskNotifyGiveFromISR(rb_frt_task[task_id], &woken);
  portYIELD_FROM_ISR(woken);
  return RBP_OK;
}
#endif

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (FreeRTOSConfig.h follows RB_CFG_CHECKS). */
#if configASSERT_DEFINED /* FreeRTOS.h: 1 when FreeRTOSConfig.h defined configASSERT */
#define RB_PORT_CHECKS "on"
#else
#define RB_PORT_CHECKS "off"
#endif
#if configUSE_PORT_OPTIMISED_TASK_SELECTION == 1
#define RB_PORT_LOOKUP "clz" /* portmacro.h: ucPortCountLeadingZeros */
#else
#define RB_PORT_LOOKUP "generic"
#endif

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

const struct rbp_ops rbp_port = {
    .kernel = "freertos",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK
#if configUSE_TIME_SLICING
            | RBP_HAS_TIME_SLICE
#endif
            | RBP_HAS_HEAP
#if configUSE_TASK_NOTIFICATIONS
            | RBP_HAS_NOTIFY
#endif
            | RBP_HAS_ZERO_LATENCY_IRQ,
    .init = rb_frt_init,
    .task_create = rb_frt_task_create,
    .start = rb_frt_start,
    .sem_create = rb_frt_sem_create,
    .sem_give = rb_frt_sem_give,
    .sem_take = rb_frt_sem_take,
    .sem_give_from_isr = rb_frt_sem_give_from_isr,
    .isr_enter = rb_frt_isr_nothing,
    .isr_exit = rb_frt_isr_nothing,
    .queue_create = rb_frt_queue_create,
    .queue_send = rb_frt_queue_send,
    .queue_receive = rb_frt_queue_receive,
    .mutex_create = rb_frt_mutex_create,
    .mutex_lock = rb_frt_mutex_lock,
    .mutex_unlock = rb_frt_mutex_unlock,
    .yield = rb_frt_yield,
    .critical_enter = rb_frt_critical_enter,
    .critical_exit = rb_frt_critical_exit,
    .delay = rb_frt_delay,
    .tick_count = rb_frt_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_frt_heap_alloc,
    .heap_free = rb_frt_heap_free,
    .heap_stats = rb_frt_heap_stats,
#if configUSE_TASK_NOTIFICATIONS
    /* Direct task notification. */
    .notify_give = rb_frt_notify_give,
    .notify_take = rb_frt_notify_take,
    .notify_give_from_isr = rb_frt_notify_give_from_isr,
#endif

    /* zero_latency_irq: taskENTER_CRITICAL raises BASEPRI to
     * configMAX_SYSCALL_INTERRUPT_PRIORITY (ARM_CM4F and ARM_CM3 ports,
     * vPortRaiseBASEPRI); the level above it is never masked by the kernel. */
    .zero_latency_prio = RB_FREERTOS_MAX_SYSCALL_PRIO - 1,
};
