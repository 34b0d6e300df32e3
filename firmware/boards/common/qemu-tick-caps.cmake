# The tick-paced tests' sample caps of the QEMU boards (qemu-netduinoplus2,
# qemu-netduino2, qemu-mps2-an505 include this file). A 1 kHz tick is a
# million emulated instructions, and a loop that reads a timer costs about
# 200 ns of host time per read: tick-paced tests take fewer samples here,
# scaled to the tick rate so they span about 0.2 s (time_slice) and 0.1 s
# (tick_overhead) of virtual time. CONFIG reports them as
# samples.<test> and warmup.<test>.
function(rb_qemu_tick_cap var per_1khz least)
  math(EXPR n "${per_1khz} * ${RB_TICK_HZ} / 1000")
  if(n LESS least)
    set(n ${least})
  endif()
  set(${var} ${n} PARENT_SCOPE)
endfunction()
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_time_slice 200 20)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_time_slice 10 2)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_tick_overhead 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_tick_overhead 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_tick_drift 200 20)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_tick_drift 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_idle_occupancy 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_idle_occupancy 5 1)
rb_qemu_tick_cap(RB_BOARD_SAMPLES_CAP_mixed_load 100 10)
rb_qemu_tick_cap(RB_BOARD_WARMUP_CAP_mixed_load 5 1)
