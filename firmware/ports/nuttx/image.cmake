# The NuttX image (included by firmware/CMakeLists.txt because port.cmake set
# RB_PORT_BUILDS_IMAGE). NuttX owns reset, the vector table, its clocks and its
# start-up, and is built by its own make:
#
#   configure  copies the nuttx and nuttx-apps checkouts (never modified) into
#              <build>/nuttx-tree, adds ports/nuttx/defconfig plus the build's
#              options as the board configuration <board>:rtosbench (the
#              board.cmake's NuttX board, stm32f4discovery by default),
#              runs tools/configure.sh (kconfig-conf, Debian's kconfig-frontends)
#              and `make context`, and checks the resulting .config kept every
#              option asked for;
#   build      compiles the harness, the board layer (without
#              boards/common/startup.c) and the port into objects with
#              exactly the flags every port's image uses, then runs NuttX's make
#              with those objects as EXTRA_OBJS (linked whole, before NuttX's libraries); CONFIG_INIT_ENTRYPOINT is the
#              harness' main, so NuttX starts it as its init task.
#
# Outputs as for every image: rtosbench-fw.elf and rtosbench-fw.map (NuttX's
# nuttx and nuttx.map), then the common .bin and size files.

find_program(RB_MAKE make)
find_program(RB_KCONFIG_CONF kconfig-conf)
if(NOT RB_MAKE OR NOT RB_KCONFIG_CONF)
  message(FATAL_ERROR "RB_PORT=nuttx: NuttX's build needs make and kconfig-conf "
    "(Debian packages make and kconfig-frontends; scripts/setup-deps.sh installs them)")
endif()

# The board's NuttX configuration (below: stm32f4discovery unless board.cmake names another);
# on QEMU an STM32 board's clock set-up is the port's (rbp_sys_nuttx.c). A
# board that brings its own NuttX chip and board (RB_BOARD_NUTTX_CUSTOM_BOARD)
# sets its clocks there.
if(DEFINED RB_BOARD_NUTTX_CUSTOM_BOARD)
  set(RB_BOARD_NUTTX_CUSTOM_CLOCKS OFF)
elseif(NOT DEFINED RB_BOARD_NUTTX_CUSTOM_CLOCKS)
  message(FATAL_ERROR "RB_PORT=nuttx: boards/${RB_BOARD}/board.cmake does not say whether NuttX's "
    "stm32f4discovery configuration keeps its clock set-up (RB_BOARD_NUTTX_CUSTOM_CLOCKS OFF) or "
    "takes the port's (ON)")
endif()
set(_rb_nx_custom_clocks ${RB_BOARD_NUTTX_CUSTOM_CLOCKS})

# The NuttX board and chip (board.cmake's RB_BOARD_NUTTX_BOARD, _BOARD_KCONFIG,
# _CHIP; unset: the STM32F4 Discovery, STM32F407VG, as on the Cortex-M4
# boards). A board with less RAM or flash than the NuttX board's linker script
# assumes sets RB_BOARD_NUTTX_RAM_SIZE and RB_BOARD_NUTTX_FLASH_SIZE (bytes):
# CONFIG_RAM_SIZE, a linker script whose MEMORY has those lengths (so an image
# that does not fit fails to link), and a heap that ends at CONFIG_RAM_END
# (RB_NX_HEAP_TO_RAM_END, rbp_sys_nuttx.c).
#
# A board NuttX has no chip or board for names the port's own
# (RB_BOARD_NUTTX_CUSTOM_CHIP: a directory of ports/nuttx/chips/,
# RB_BOARD_NUTTX_CUSTOM_BOARD: of ports/nuttx/boards/) and its RAM and flash
# sizes; NuttX finds them through CONFIG_ARCH_CHIP_ARM_CUSTOM and
# CONFIG_ARCH_BOARD_CUSTOM (the board's rtosbench.defconfig), as copies in
# the tree's rtosbench/ directory (NuttX builds in the board directory).
set(_rb_nx_custom OFF)
if(DEFINED RB_BOARD_NUTTX_CUSTOM_BOARD)
  set(_rb_nx_custom ON)
  set(_rb_nx_chip_src "${CMAKE_CURRENT_LIST_DIR}/chips/${RB_BOARD_NUTTX_CUSTOM_CHIP}")
  set(_rb_nx_board_src "${CMAKE_CURRENT_LIST_DIR}/boards/${RB_BOARD_NUTTX_CUSTOM_BOARD}")
  if(NOT RB_BOARD_NUTTX_CUSTOM_CHIP OR NOT EXISTS "${_rb_nx_chip_src}/Make.defs"
     OR NOT EXISTS "${_rb_nx_board_src}/rtosbench.defconfig")
    message(FATAL_ERROR "RB_PORT=nuttx: boards/${RB_BOARD}/board.cmake names the custom NuttX board "
      "'${RB_BOARD_NUTTX_CUSTOM_BOARD}' and chip '${RB_BOARD_NUTTX_CUSTOM_CHIP}': ports/nuttx/boards/ "
      "and ports/nuttx/chips/ must hold them")
  endif()
  if(NOT RB_BOARD_NUTTX_RAM_SIZE OR NOT RB_BOARD_NUTTX_FLASH_SIZE)
    message(FATAL_ERROR "RB_PORT=nuttx: boards/${RB_BOARD}/board.cmake names a custom NuttX board "
      "but not RB_BOARD_NUTTX_RAM_SIZE and _FLASH_SIZE")
  endif()
  set(_rb_nx_board_lines "CONFIG_RAM_SIZE=${RB_BOARD_NUTTX_RAM_SIZE}")
  set(_rb_nx_chip_defconfig "${_rb_nx_board_src}/rtosbench.defconfig")
elseif(DEFINED RB_BOARD_NUTTX_BOARD)
  set(_rb_nx_board ${RB_BOARD_NUTTX_BOARD})
  set(_rb_nx_board_kconfig ${RB_BOARD_NUTTX_BOARD_KCONFIG})
  set(_rb_nx_chip ${RB_BOARD_NUTTX_CHIP})
  if(NOT _rb_nx_board_kconfig OR NOT _rb_nx_chip OR NOT RB_BOARD_NUTTX_RAM_SIZE
     OR NOT RB_BOARD_NUTTX_FLASH_SIZE)
    message(FATAL_ERROR "RB_PORT=nuttx: boards/${RB_BOARD}/board.cmake names the NuttX board "
      "'${_rb_nx_board}' but not all of RB_BOARD_NUTTX_BOARD_KCONFIG, _CHIP, _RAM_SIZE, _FLASH_SIZE")
  endif()
  # The init task (the harness' main until start()) gets the 1 KB main stack
  # every other kernel's main has on such a board, not NuttX's 2 KB default.
  # What else must shrink to fit NuttX's heap and the board's task stacks
  # (docs/kernels.md, "NuttX", small RAM): no task names, no POSIX timers,
  # stdio streams or signal actions (the port uses none; one IRQ action kept),
  # fewer preallocated queue messages (the harness' queues hold one each),
  # and the interrupts on a 512-byte stack of their own instead of the
  # interrupted task's, so the idle task's own stack is 512 bytes too.
  set(_rb_nx_board_lines "CONFIG_RAM_SIZE=${RB_BOARD_NUTTX_RAM_SIZE}" "CONFIG_INIT_STACKSIZE=1024"
    "CONFIG_TASK_NAME_SIZE=0" "CONFIG_PREALLOC_TIMERS=0" "# CONFIG_FILE_STREAM is not set"
    "CONFIG_PREALLOC_MQ_MSGS=4" "CONFIG_PREALLOC_MQ_IRQ_MSGS=2" "CONFIG_ARCH_INTERRUPTSTACK=512"
    "CONFIG_IDLETHREAD_STACKSIZE=512" "CONFIG_SIG_PREALLOC_IRQ_ACTIONS=1")
else()
  set(_rb_nx_board stm32f4discovery)
  set(_rb_nx_board_kconfig STM32F4_DISCOVERY)
  set(_rb_nx_chip STM32F407VG)
  # The F4's 64 KB of CCM stay out of the heap (CONFIG_MM_REGIONS=1).
  set(_rb_nx_board_lines "CONFIG_RAM_SIZE=114688" "CONFIG_STM32_CCMEXCLUDE=y")
endif()
if(NOT _rb_nx_custom)
  if(NOT EXISTS "${RB_KERNEL_SOURCE}/boards/arm/stm32/${_rb_nx_board}/scripts")
    message(FATAL_ERROR "RB_PORT=nuttx: NuttX has no board boards/arm/stm32/${_rb_nx_board}")
  endif()
  list(PREPEND _rb_nx_board_lines "CONFIG_ARCH_BOARD=\"${_rb_nx_board}\""
    "CONFIG_ARCH_BOARD_${_rb_nx_board_kconfig}=y" "CONFIG_ARCH_CHIP_${_rb_nx_chip}=y")
  set(_rb_nx_chip_defconfig "${CMAKE_CURRENT_LIST_DIR}/stm32.defconfig")
  # NuttX's board in the copy: its configuration directory, its linker script.
  set(_rb_nx_board_dir "boards/arm/stm32/${_rb_nx_board}")
  set(_rb_nx_ld_from "${RB_KERNEL_SOURCE}/${_rb_nx_board_dir}/scripts/ld.script")
endif()

# ---- The tree: a copy of the checkouts, configured -------------------------
set(_rb_nx_top "${CMAKE_BINARY_DIR}/nuttx-tree")
set(_rb_nx "${_rb_nx_top}/nuttx")
set(_rb_nx_apps "${_rb_nx_top}/apps")
set(_rb_nx_stamp "${RB_KERNEL_SOURCE}|${RB_KERNEL_COMMIT}|${RB_KERNEL_SOURCE_APPS}")
# configure.sh refuses a configured tree: start from a clean one each time.
# A tree make cannot clean (a configuration that broke half-way) is copied
# afresh.
if(EXISTS "${_rb_nx}/.config")
  execute_process(COMMAND ${RB_MAKE} -C "${_rb_nx}" distclean
    RESULT_VARIABLE _rb_rc OUTPUT_QUIET ERROR_QUIET)
  if(NOT _rb_rc EQUAL 0)
    file(REMOVE "${_rb_nx_top}/.rb-copied")
  endif()
endif()
set(_rb_nx_old_stamp "")
if(EXISTS "${_rb_nx_top}/.rb-copied")
  file(READ "${_rb_nx_top}/.rb-copied" _rb_nx_old_stamp)
endif()
if(NOT _rb_nx_old_stamp STREQUAL _rb_nx_stamp)
  file(REMOVE_RECURSE "${_rb_nx_top}")
  file(MAKE_DIRECTORY "${_rb_nx_top}")
  # A checkout named through a symbolic link is copied as the tree it names.
  get_filename_component(_rb_nx_from "${RB_KERNEL_SOURCE}" REALPATH)
  get_filename_component(_rb_nx_apps_from "${RB_KERNEL_SOURCE_APPS}" REALPATH)
  file(COPY "${_rb_nx_from}/" DESTINATION "${_rb_nx}" PATTERN ".git" EXCLUDE)
  file(COPY "${_rb_nx_apps_from}/" DESTINATION "${_rb_nx_apps}" PATTERN ".git" EXCLUDE)
  file(WRITE "${_rb_nx_top}/.rb-copied" "${_rb_nx_stamp}")
endif()
# The port's own chip and board, copied afresh on every configure.
if(_rb_nx_custom)
  file(REMOVE_RECURSE "${_rb_nx}/rtosbench")
  file(MAKE_DIRECTORY "${_rb_nx}/rtosbench")
  file(COPY "${_rb_nx_chip_src}/" DESTINATION "${_rb_nx}/rtosbench/chip")
  file(COPY "${_rb_nx_board_src}/" DESTINATION "${_rb_nx}/rtosbench/board")
  file(GLOB_RECURSE _rb_nx_custom_files "${_rb_nx_chip_src}/*" "${_rb_nx_board_src}/*")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_rb_nx_custom_files})
  set(_rb_nx_board_dir "rtosbench/board")
  set(_rb_nx_ld_from "${_rb_nx_board_src}/scripts/ld.script")
endif()

# A smaller part than the NuttX board's: its linker script (in the copy)
# with the part's flash and RAM as its MEMORY lengths, rewritten from the
# checkout's each time.
if(DEFINED RB_BOARD_NUTTX_RAM_SIZE)
  set(_rb_nx_ld "${_rb_nx_board_dir}/scripts/ld.script")
  file(READ "${_rb_nx_ld_from}" _rb_nx_ld_text)
  string(REGEX REPLACE "(flash \\(rx\\) *: *ORIGIN *= *0x[0-9A-Fa-f]+, *LENGTH *= *)[0-9]+[KM]?"
    "\\1${RB_BOARD_NUTTX_FLASH_SIZE}" _rb_nx_ld_new "${_rb_nx_ld_text}")
  string(REGEX REPLACE "(sram \\(rwx\\) *: *ORIGIN *= *0x[0-9A-Fa-f]+, *LENGTH *= *)[0-9]+[KM]?"
    "\\1${RB_BOARD_NUTTX_RAM_SIZE}" _rb_nx_ld_new "${_rb_nx_ld_new}")
  string(FIND "${_rb_nx_ld_new}" "LENGTH = ${RB_BOARD_NUTTX_FLASH_SIZE}" _rb_f)
  string(FIND "${_rb_nx_ld_new}" "LENGTH = ${RB_BOARD_NUTTX_RAM_SIZE}" _rb_r)
  if(_rb_f LESS 0 OR _rb_r LESS 0)
    message(FATAL_ERROR "RB_PORT=nuttx: ${_rb_nx_ld} has no MEMORY lines flash (rx) / sram (rwx) "
      "to set to ${RB_BOARD_NUTTX_FLASH_SIZE} / ${RB_BOARD_NUTTX_RAM_SIZE} bytes")
  endif()
  file(WRITE "${_rb_nx}/${_rb_nx_ld}" "${_rb_nx_ld_new}")
  # NuttX's STM32 heap ignores CONFIG_RAM_SIZE (rbp_sys_nuttx.c); the port's
  # own chips end it at CONFIG_RAM_END already.
  if(NOT _rb_nx_custom)
    list(APPEND RB_PORT_DEFINITIONS RB_NX_HEAP_TO_RAM_END=1)
  endif()
endif()

# The options that follow the build (the rest: ports/nuttx/defconfig).
math(EXPR _rb_nx_usec "1000000 / ${RB_TICK_HZ}")
math(EXPR _rb_nx_usec_rem "1000000 % ${RB_TICK_HZ}")
if(NOT _rb_nx_usec_rem EQUAL 0)
  message(FATAL_ERROR "RB_PORT=nuttx: RB_TICK_HZ=${RB_TICK_HZ} is not a whole number of "
    "microseconds (CONFIG_USEC_PER_TICK)")
endif()
set(_rb_nx_want ${_rb_nx_board_lines} "CONFIG_USEC_PER_TICK=${_rb_nx_usec}")
if(RB_TIME_SLICING)
  # CONFIG_RR_INTERVAL is in ms: one tick must be a whole number of them.
  math(EXPR _rb_nx_rr "1000 / ${RB_TICK_HZ}")
  math(EXPR _rb_nx_rr_rem "1000 % ${RB_TICK_HZ}")
  if(_rb_nx_rr LESS 1 OR NOT _rb_nx_rr_rem EQUAL 0)
    message(FATAL_ERROR "RB_PORT=nuttx: a one-tick round-robin interval at RB_TICK_HZ=${RB_TICK_HZ} "
      "is not a whole number of ms (CONFIG_RR_INTERVAL); use a tick rate dividing 1000 or "
      "-DRB_TIME_SLICING=OFF")
  endif()
  list(APPEND _rb_nx_want "CONFIG_RR_INTERVAL=${_rb_nx_rr}")
endif()
if(RB_FPU_CONTEXT)
  list(APPEND _rb_nx_want "CONFIG_ARCH_FPU=y")
endif()
# The optimisation every image is built with, for NuttX's own files too:
# CONFIG_DEBUG_OPTLEVEL takes one -O option (NuttX quotes it as one
# argument); -g0 is NuttX's default without CONFIG_DEBUG_SYMBOLS.
set(_rb_nx_optlevel "")
foreach(_rb_o IN LISTS RB_OPT_LIST)
  if(_rb_o MATCHES "^-O[0-3sgz]?$" AND _rb_nx_optlevel STREQUAL "")
    set(_rb_nx_optlevel "${_rb_o}")
  elseif(NOT _rb_o STREQUAL "-g0")
    message(FATAL_ERROR "RB_PORT=nuttx: RB_OPT='${RB_OPT}': NuttX's build takes one -O option and -g0, "
      "not '${_rb_o}'")
  endif()
endforeach()
if(_rb_nx_optlevel STREQUAL "")
  message(FATAL_ERROR "RB_PORT=nuttx: RB_OPT='${RB_OPT}' names no -O level")
endif()
list(APPEND _rb_nx_want "CONFIG_DEBUG_CUSTOMOPT=y" "CONFIG_DEBUG_OPTLEVEL=\"${_rb_nx_optlevel}\""
  "# CONFIG_DEBUG_SYMBOLS is not set")
if(RB_CHECKS_NUM)
  list(APPEND _rb_nx_want "CONFIG_DEBUG_FEATURES=y" "CONFIG_DEBUG_ASSERTIONS=y")
endif()
if(_rb_nx_custom_clocks)
  list(APPEND _rb_nx_want "CONFIG_ARCH_BOARD_STM32_CUSTOM_CLOCKCONFIG=y")
endif()
file(READ "${CMAKE_CURRENT_LIST_DIR}/defconfig" _rb_nx_defconfig)
file(READ "${_rb_nx_chip_defconfig}" _rb_nx_chip_text)
list(JOIN _rb_nx_want "\n" _rb_nx_want_text)
set(_rb_nx_cfgdir "${_rb_nx}/${_rb_nx_board_dir}/configs/rtosbench")
file(MAKE_DIRECTORY "${_rb_nx_cfgdir}")
file(CONFIGURE OUTPUT "${_rb_nx_cfgdir}/defconfig"
  CONTENT "${_rb_nx_defconfig}${_rb_nx_chip_text}${_rb_nx_want_text}\n" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/defconfig"
  "${_rb_nx_chip_defconfig}")

# configure.sh names NuttX's own board as <board>:<config>, a custom one by
# the path of its configuration directory (relative to the tree's top).
if(_rb_nx_custom)
  set(_rb_nx_configure_arg "${_rb_nx_board_dir}/configs/rtosbench")
else()
  set(_rb_nx_configure_arg "${_rb_nx_board}:rtosbench")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env "PATH=$ENV{PATH}"
          "${_rb_nx}/tools/configure.sh" -l -a ../apps ${_rb_nx_configure_arg}
  WORKING_DIRECTORY "${_rb_nx}"
  RESULT_VARIABLE _rb_rc OUTPUT_VARIABLE _rb_out ERROR_VARIABLE _rb_out)
if(NOT _rb_rc EQUAL 0)
  message(FATAL_ERROR "RB_PORT=nuttx: tools/configure.sh ${_rb_nx_configure_arg} failed:\n${_rb_out}")
endif()
file(WRITE "${CMAKE_BINARY_DIR}/nuttx-configure.log" "${_rb_out}")
# olddefconfig drops what Kconfig does not accept: every option asked for
# must have survived.
file(STRINGS "${_rb_nx}/.config" _rb_nx_config)
foreach(line IN LISTS _rb_nx_want)
  if(NOT line IN_LIST _rb_nx_config)
    message(FATAL_ERROR "RB_PORT=nuttx: NuttX's .config lost '${line}' (Kconfig did not accept it)")
  endif()
endforeach()
foreach(_rb_f "${CMAKE_CURRENT_LIST_DIR}/defconfig" "${_rb_nx_chip_defconfig}")
  file(STRINGS "${_rb_f}" _rb_nx_base REGEX "^CONFIG_")
  foreach(line IN LISTS _rb_nx_base)
    if(NOT line IN_LIST _rb_nx_config)
      message(FATAL_ERROR "RB_PORT=nuttx: NuttX's .config lost '${line}' of ${_rb_f}")
    endif()
  endforeach()
endforeach()
# The copy has no git history: NuttX reads its version from .version (the form
# tools/version.sh writes), so its own version string stays right.
string(REPLACE "." ";" _rb_nx_v "${RB_KERNEL_VERSION}")
list(GET _rb_nx_v 0 _rb_nx_major)
list(GET _rb_nx_v 1 _rb_nx_minor)
list(GET _rb_nx_v 2 _rb_nx_patch)
file(WRITE "${_rb_nx}/.version" "#!/bin/bash\n\nCONFIG_VERSION_STRING=\"${RB_KERNEL_VERSION}\"\n"
  "CONFIG_VERSION_MAJOR=${_rb_nx_major}\nCONFIG_VERSION_MINOR=${_rb_nx_minor}\n"
  "CONFIG_VERSION_PATCH=${_rb_nx_patch}\nCONFIG_VERSION_BUILD=\"${RB_KERNEL_COMMIT}\"\n")
execute_process(COMMAND ${RB_MAKE} -C "${_rb_nx}" context
  RESULT_VARIABLE _rb_rc OUTPUT_VARIABLE _rb_out ERROR_VARIABLE _rb_out)
if(NOT _rb_rc EQUAL 0 OR NOT EXISTS "${_rb_nx}/include/nuttx/config.h")
  message(FATAL_ERROR "RB_PORT=nuttx: make context failed:\n${_rb_out}")
endif()

# ---- The harness library: the same flags as every image --------------------
set(_rb_nx_board_sources ${RB_BOARD_SOURCES})
list(FILTER _rb_nx_board_sources EXCLUDE REGEX "/common/startup\\.c$")
add_library(rtosbench OBJECT ${RB_HARNESS_SOURCES} ${_rb_nx_board_sources} ${RB_PORT_SOURCES})
target_compile_options(rtosbench PRIVATE ${RB_COMMON_FLAGS} ${RB_OWN_WARNINGS})
target_include_directories(rtosbench PRIVATE ${RB_HARNESS_INCLUDE} ${RB_GENERATED_INCLUDE}
  ${RB_BOARD_INCLUDE_DIRS} ${RB_COMMON_INCLUDE} ${RB_PORT_INCLUDE_DIRS})
target_compile_definitions(rtosbench PRIVATE ${RB_PORT_DEFINITIONS})
# The port's files use the system's POSIX headers, as NuttX's own files do
# (tools/Config.mk: -isystem include, __NuttX__).
set_source_files_properties(${RB_PORT_SOURCES} PROPERTIES
  COMPILE_OPTIONS "-isystem;${_rb_nx}/include" COMPILE_DEFINITIONS "__NuttX__")

# ---- NuttX's make links the image --------------------------------------------
# NuttX's compile rules call $(CCACHE) $(CC) (tools/Config.mk): with ccache
# installed, a rebuild of the same tree and options (another build
# directory, another checkout) compiles from the cache. The objects, and so
# the image, are the same but for the build time NuttX's uname compiles in;
# .config is untouched (CONFIG_CCACHE only sets the variable's default).
# MKDEP=true skips NuttX's dependency pass (its `depend` target runs the
# preprocessor once more over every file, one directory after the other):
# the tree is configured from distclean whenever this directory is, and the
# copied kernel sources never change under it, so the dependency lists would
# never rebuild anything. It halves a build that compiles from the cache
# (90 s to 45 s here, the same image).
find_program(RB_CCACHE ccache)
set(_rb_nx_ccache "")
if(RB_CCACHE)
  set(_rb_nx_ccache "CCACHE='${RB_CCACHE}'")
endif()
# Reproducible (docs/firmware.md, "Reproducible images"): NuttX's files are
# compiled with the prefix maps of every image (EXTRAFLAGS, which its
# Make.defs appends to CFLAGS) plus the copies' own (nuttx, apps), and with
# the fixed build date, which lib_utsname.c compiles in (__DATE__ __TIME__
# after CONFIG_VERSION_BUILD).
set(_rb_nx_maps "-ffile-prefix-map=${_rb_nx}=nuttx" "-ffile-prefix-map=${_rb_nx_apps}=apps" ${RB_PREFIX_MAPS})
list(JOIN _rb_nx_maps " " _rb_nx_maps)
add_custom_command(
  OUTPUT "${CMAKE_BINARY_DIR}/rtosbench-fw.elf"
  COMMAND sh -c "SOURCE_DATE_EPOCH=${RB_SOURCE_DATE_EPOCH} ${RB_MAKE} -C '${_rb_nx}' -j2 ${_rb_nx_ccache} MKDEP=true EXTRAFLAGS='${_rb_nx_maps}' EXTRA_OBJS='$<JOIN:$<TARGET_OBJECTS:rtosbench>, >' >'${CMAKE_BINARY_DIR}/nuttx-make.log' 2>&1 || { tail -n 40 '${CMAKE_BINARY_DIR}/nuttx-make.log'; exit 1; }"
  COMMAND ${CMAKE_COMMAND} -E copy "${_rb_nx}/nuttx" "${CMAKE_BINARY_DIR}/rtosbench-fw.elf"
  COMMAND ${CMAKE_COMMAND} -E copy "${_rb_nx}/nuttx.map" "${CMAKE_BINARY_DIR}/rtosbench-fw.map"
  DEPENDS rtosbench $<TARGET_OBJECTS:rtosbench>
  COMMENT "NuttX make (log: nuttx-make.log)"
  VERBATIM)
add_custom_target(rtosbench-fw ALL DEPENDS "${CMAKE_BINARY_DIR}/rtosbench-fw.elf")
