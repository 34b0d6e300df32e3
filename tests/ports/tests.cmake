# End-to-end tests of the kernel ports (firmware/ports/<kernel>/): each builds
# with the kernel's real upstream source, runs every harness test under QEMU
# and has its log checked by the real `rtosbench verify`; each also builds the
# STM32F407 Discovery image. Kernel sources are never part of this
# repository: a test finds its kernel through an environment variable read at
# test time and is reported as SKIPPED (exit 77) when it is not set, e.g.
#
#   RTOSBENCH_KERNEL_FREERTOS=~/src/FreeRTOS-Kernel ctest -R ports_
#
# docs/kernels.md lists each kernel's upstream URL, tag and variable. The
# logic lives in port-test.sh next to this file.

set(RB_PORTS_TESTS "${CMAKE_CURRENT_LIST_DIR}")
set(RB_PORTS_WORK "${CMAKE_BINARY_DIR}/ports-tests")

# The bare image with the same options as the kernel images (port-test.sh
# builds those with 2000 samples, 200 warm-up): the footprint baseline.
add_test(NAME ports_bare_qemu_build
  COMMAND ${CMAKE_COMMAND} -S ${PROJECT_SOURCE_DIR}/firmware -B ${RB_PORTS_WORK}/bare-qemu
          -G ${CMAKE_GENERATOR} -DRB_PORT=bare -DRB_BOARD=qemu-netduinoplus2
          -DRB_SAMPLES=2000 -DRB_WARMUP=200 -DRB_NONCE=5eed0105)
add_test(NAME ports_bare_qemu_link COMMAND ${CMAKE_COMMAND} --build ${RB_PORTS_WORK}/bare-qemu)
set_tests_properties(ports_bare_qemu_build PROPERTIES FIXTURES_SETUP ports_bare LABELS ports TIMEOUT 120)
set_tests_properties(ports_bare_qemu_link PROPERTIES FIXTURES_SETUP ports_bare
  DEPENDS ports_bare_qemu_build LABELS ports TIMEOUT 300)
# RB_CHECKS reaches the bare port's operations (checks-test.sh).
add_test(NAME ports_bare_checks
  COMMAND ${RB_PORTS_TESTS}/checks-test.sh bare - ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK} ${CMAKE_GENERATOR})
set_tests_properties(ports_bare_checks PROPERTIES LABELS "ports;qemu" TIMEOUT 300)

# Every kernel port of firmware/ports/ (bare and the template aside) gets its
# tests; its kernel source comes from RTOSBENCH_KERNEL_<PORT> (`rtosbench
# kernels env` sets it from the cache), and its pin, the tests its port
# reports NA and its known defects from its kernel.yaml (port-test.sh reads
# them through `rtosbench kernels show`).
file(GLOB RB_PORT_RECIPES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/firmware/ports/*/port.cmake)
set(RB_PORTS "")
foreach(recipe IN LISTS RB_PORT_RECIPES)
  get_filename_component(dir ${recipe} DIRECTORY)
  get_filename_component(port ${dir} NAME)
  if(NOT port STREQUAL "bare" AND NOT port STREQUAL "template")
    list(APPEND RB_PORTS ${port})
  endif()
endforeach()

foreach(port IN LISTS RB_PORTS)
  string(TOUPPER "RTOSBENCH_KERNEL_${port}" env_var)
  add_test(NAME ports_${port}_qemu
    COMMAND ${RB_PORTS_TESTS}/port-test.sh qemu ${port} ${env_var} ${RTOSBENCH_BIN}
            ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK} ${CMAKE_GENERATOR} ${RB_PORTS_WORK}/bare-qemu)
  # A kernel build that misses the compiler cache (a clean clone: NuttX' make
  # copies its tree into the build directory) takes minutes on a loaded CI
  # machine: NuttX's first build took 599 s beside the other tests.
  set_tests_properties(ports_${port}_qemu PROPERTIES
    FIXTURES_REQUIRED ports_bare SKIP_RETURN_CODE 77 LABELS "ports;qemu" TIMEOUT 1200)
  # RB_CHECKS reaches the kernel's configuration (checks-test.sh).
  add_test(NAME ports_${port}_checks
    COMMAND ${RB_PORTS_TESTS}/checks-test.sh ${port} ${env_var} ${RTOSBENCH_BIN}
            ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK} ${CMAKE_GENERATOR})
  set_tests_properties(ports_${port}_checks PROPERTIES
    SKIP_RETURN_CODE 77 LABELS "ports;qemu" TIMEOUT 1800)  # two builds (NuttX: minutes each)
  add_test(NAME ports_${port}_f407_build
    COMMAND ${RB_PORTS_TESTS}/port-test.sh f407 ${port} ${env_var} ${RTOSBENCH_BIN}
            ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK} ${CMAKE_GENERATOR})
  set_tests_properties(ports_${port}_f407_build PROPERTIES
    SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 1200)
endforeach()

# Byte-reproducible images (repro-test.sh): one more clean build of an image
# the suite already made (the bare port's QEMU image, each kernel's f407
# image), at other absolute paths, gives the same .bin and .elf bytes.
add_test(NAME ports_bare_repro
  COMMAND ${RB_PORTS_TESTS}/repro-test.sh bare - ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK} ${CMAKE_GENERATOR} qemu-netduinoplus2 ${RB_PORTS_WORK}/bare-qemu)
set_tests_properties(ports_bare_repro PROPERTIES DEPENDS ports_bare_qemu_link LABELS ports TIMEOUT 300)
foreach(port IN LISTS RB_PORTS)
  string(TOUPPER "RTOSBENCH_KERNEL_${port}" env_var)
  add_test(NAME ports_${port}_repro
    COMMAND ${RB_PORTS_TESTS}/repro-test.sh ${port} ${env_var} ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
            ${RB_PORTS_WORK} ${CMAKE_GENERATOR} stm32f407-disco ${RB_PORTS_WORK}/${port}-stm32f407-disco)
  # NuttX: an uncached build of its tree (minutes).
  set_tests_properties(ports_${port}_repro PROPERTIES DEPENDS ports_${port}_f407_build
    SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 1200)
endforeach()

# A real `rtosbench run` of configs/qemu.yaml (port-test sample counts) stores
# each kernel job's kernel-alone footprint against the bare job's image.
add_test(NAME ports_run_footprint
  COMMAND ${RB_PORTS_TESTS}/run-footprint.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/run-footprint)
set_tests_properties(ports_run_footprint PROPERTIES SKIP_RETURN_CODE 77 LABELS "ports;qemu" TIMEOUT 900)

# The measurement windows of every kernel's images (both boards) are exact
# and the same code as the bare image's (tests/firmware/window-disasm.py).
set(RB_PORTS_ALL_TESTS ports_bare_qemu_link)
foreach(port IN LISTS RB_PORTS)
  list(APPEND RB_PORTS_ALL_TESTS ports_${port}_qemu ports_${port}_f407_build)
endforeach()
add_test(NAME ports_window_disasm
  COMMAND ${PROJECT_SOURCE_DIR}/tests/firmware/window-disasm.py ${PROJECT_SOURCE_DIR} --kernels
          ${RB_PORTS_WORK})
set_tests_properties(ports_window_disasm PROPERTIES DEPENDS "${RB_PORTS_ALL_TESTS}"
  SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 120)

# The POSIX port and its PX5 layer against the host's POSIX headers (PX5's
# own source is commercial and absent; ports_nuttx_* build the port for real).
add_test(NAME ports_posix_compile
  COMMAND ${RB_PORTS_TESTS}/posix-compile.sh ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/posix-compile)
set_tests_properties(ports_posix_compile PROPERTIES SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 120)

# The ARMv7-M twin without FPU (issue 31): a real `rtosbench run` of
# configs/qemu-netduino2.yaml for bare and FreeRTOS (GCC/ARM_CM3 from the
# board's core) on QEMU netduino2 with the GD32F103C8's 20 KB of SRAM, every
# test at the board's 256 samples (twin-run.sh).
add_test(NAME ports_bare_freertos_netduino2
  COMMAND ${RB_PORTS_TESTS}/twin-run.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/twin-netduino2 qemu-netduino2.yaml qemu-netduino2 256 20)
set_tests_properties(ports_bare_freertos_netduino2 PROPERTIES SKIP_RETURN_CODE 77
  LABELS "ports;qemu" TIMEOUT 900)
# Every other kernel of the matrix on the same twin, each when its source is
# at hand, with what its port directory declares for the core: its own
# Cortex-M3 CPU port (RB_PORT_CPUS, CONFIG port_variant=) and OK, PORT_MISSING
# with its reason where the recipe has none, INVALID by exactly its known
# defects there (kernel.yaml `defects`).
add_test(NAME ports_kernels_netduino2
  COMMAND ${RB_PORTS_TESTS}/twin-run.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/twin-netduino2-kernels qemu-netduino2.yaml qemu-netduino2 256 20 all)
set_tests_properties(ports_kernels_netduino2 PROPERTIES SKIP_RETURN_CODE 77
  LABELS "ports;qemu" TIMEOUT 1200)

# The GD32F103C8 (seed 001's bench; no board is reachable here): bare and
# FreeRTOS (GCC/ARM_CM3) link for gd32f103c8 within its 64 KB of flash and
# 20 KB of SRAM, and the CONFIG pins the board declares that a build fixes
# (core clock, ruler, crystal, interrupt levels, the 256-sample cap) are what
# the image was compiled with (board-fit.sh). The twin's runs above prove the
# same RAM split under QEMU.
add_test(NAME ports_bare_gd32_build
  COMMAND ${RB_PORTS_TESTS}/board-fit.sh gd32f103c8 bare - ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/gd32 ${CMAKE_GENERATOR} gd32f103.yaml)
set_tests_properties(ports_bare_gd32_build PROPERTIES LABELS ports TIMEOUT 300)
add_test(NAME ports_freertos_gd32_build
  COMMAND ${RB_PORTS_TESTS}/board-fit.sh gd32f103c8 freertos RTOSBENCH_KERNEL_FREERTOS ${RTOSBENCH_BIN}
          ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/gd32 ${CMAKE_GENERATOR} gd32f103.yaml)
set_tests_properties(ports_freertos_gd32_build PROPERTIES SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 600)

# The Cortex-M33 twin (qemu-mps2-an505, ARMv8-M Mainline, under the board's
# -icount shift=6): bare and every kernel of the matrix whose source is at
# hand, through the real tool, within the machine's 256 KB of SRAM and no
# test's samples capped, each as its port directory declares for the
# Cortex-M33 (as on netduino2 above).
add_test(NAME ports_kernels_an505
  COMMAND ${RB_PORTS_TESTS}/twin-run.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/twin-an505 qemu-mps2-an505.yaml qemu-mps2-an505 - 256 all)
set_tests_properties(ports_kernels_an505 PROPERTIES SKIP_RETURN_CODE 77
  LABELS "ports;qemu" TIMEOUT 1200)

# nucleo-h5 (issue 31; the NUCLEO-H563ZI standing in for seed 003's
# NUCLEO-H5E5ZJ-Q): bare and FreeRTOS (GCC/ARM_CM33_NTZ) link for the real
# board, fit its linker script's memory and compile the CONFIG pins the
# board declares (board-fit.sh). No run: the board is not here.
add_test(NAME ports_bare_nucleo_h5_build
  COMMAND ${RB_PORTS_TESTS}/board-fit.sh nucleo-h5 bare - ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/nucleo-h5 ${CMAKE_GENERATOR} nucleo-h5.yaml)
set_tests_properties(ports_bare_nucleo_h5_build PROPERTIES LABELS ports TIMEOUT 300)
add_test(NAME ports_freertos_nucleo_h5_build
  COMMAND ${RB_PORTS_TESTS}/board-fit.sh nucleo-h5 freertos RTOSBENCH_KERNEL_FREERTOS
          ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/nucleo-h5 ${CMAKE_GENERATOR}
          nucleo-h5.yaml)
set_tests_properties(ports_freertos_nucleo_h5_build PROPERTIES SKIP_RETURN_CODE 77 LABELS ports
  TIMEOUT 600)

# The edge variant (issue 32; docs/firmware.md, "Edges"): bare and FreeRTOS
# on the STM32F405 twin with edges off and on through `rtosbench run`; every
# median the two builds share must be equal (edges-test.sh), and the edges
# image of the F407 Discovery must build, link and fit (board-fit.sh's
# checks on an RB_EDGES=on image, edges-f407.sh).
add_test(NAME ports_edges_netduinoplus2
  COMMAND ${RB_PORTS_TESTS}/edges-test.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR}
          ${RB_PORTS_WORK}/edges-netduinoplus2)
set_tests_properties(ports_edges_netduinoplus2 PROPERTIES SKIP_RETURN_CODE 77
  LABELS "ports;qemu" TIMEOUT 900)
add_test(NAME ports_edges_f407_build
  COMMAND ${RB_PORTS_TESTS}/edges-f407.sh ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/edges-f407
          ${CMAKE_GENERATOR})
set_tests_properties(ports_edges_f407_build PROPERTIES SKIP_RETURN_CODE 77 LABELS ports TIMEOUT 900)
# The order of the edge writes (EDGE PROTOCOL v1), read back from QEMU's log
# of the AN505 twin's stores to its unimplemented GPIO ports (edges-sequence.sh).
add_test(NAME ports_edges_sequence_an505
  COMMAND ${RB_PORTS_TESTS}/edges-sequence.sh ${PROJECT_SOURCE_DIR} ${RB_PORTS_WORK}/edges-sequence
          ${CMAKE_GENERATOR})
set_tests_properties(ports_edges_sequence_an505 PROPERTIES SKIP_RETURN_CODE 77
  LABELS "ports;qemu" TIMEOUT 900)
