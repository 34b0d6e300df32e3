# Helpers for firmware/CMakeLists.txt and for ports/<name>/port.cmake.

# rb_list_subdirs_with(<dir> <marker file> <out var>): the sorted names of the
# subdirectories of <dir> that contain <marker file>.
function(rb_list_subdirs_with dir marker out)
  file(GLOB _markers RELATIVE "${dir}" "${dir}/*/${marker}")
  set(_names "")
  foreach(m IN LISTS _markers)
    get_filename_component(_n "${m}" DIRECTORY)
    list(APPEND _names "${_n}")
  endforeach()
  list(SORT _names)
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

# rb_require_uint(<var> <min>): FATAL_ERROR unless ${var} is a decimal
# integer >= min.
function(rb_require_uint var min)
  if(NOT "${${var}}" MATCHES "^[0-9]+$" OR "${${var}}" LESS ${min})
    message(FATAL_ERROR "${var}='${${var}}' must be an integer >= ${min}")
  endif()
endfunction()

# rb_require_config_value(<var>): the value is echoed in a CONFIG line, where
# ',', '|', CR and LF would break the record (docs/protocol.md section 1), and
# it becomes a C string literal, where '"' and '\' would break the build.
function(rb_require_config_value var)
  if("${${var}}" MATCHES "[,|\r\n\"\\]")
    message(FATAL_ERROR "${var}='${${var}}' must not contain ',', '|', '\"', '\\' or a line break: "
      "it is echoed in the firmware's CONFIG line")
  endif()
endfunction()

# rb_require_kernel_source(FILES <relative path>... [HINT <text>]): for kernel
# ports. FATAL_ERROR when RB_KERNEL_SOURCE is empty, is not a directory, or
# lacks one of FILES (paths relative to RB_KERNEL_SOURCE), naming what is
# missing and how to provide it.
function(rb_require_kernel_source)
  cmake_parse_arguments(ARG "" "HINT" "FILES" ${ARGN})
  set(_hint "")
  if(ARG_HINT)
    set(_hint " (${ARG_HINT})")
  endif()
  if("${RB_KERNEL_SOURCE}" STREQUAL "")
    message(FATAL_ERROR "RB_PORT=${RB_PORT} needs the kernel source: RB_KERNEL_SOURCE is empty; "
      "pass -DRB_KERNEL_SOURCE=<path to the kernel checkout>${_hint}")
  endif()
  if(NOT IS_DIRECTORY "${RB_KERNEL_SOURCE}")
    message(FATAL_ERROR "RB_PORT=${RB_PORT} needs the kernel source: RB_KERNEL_SOURCE='${RB_KERNEL_SOURCE}' "
      "is not a directory${_hint}")
  endif()
  foreach(f IN LISTS ARG_FILES)
    if(NOT EXISTS "${RB_KERNEL_SOURCE}/${f}")
      message(FATAL_ERROR "RB_PORT=${RB_PORT} needs the kernel source: '${RB_KERNEL_SOURCE}' has no '${f}'"
        "${_hint}")
    endif()
  endforeach()
endfunction()

# rb_check_kernel_commit(<checkout dir>): for kernel ports. When <dir> is a git
# checkout, RB_KERNEL_COMMIT "n/a" becomes its HEAD (8 hex digits, echoed in
# CONFIG), and any other RB_KERNEL_COMMIT must be a prefix of HEAD: building a
# checkout at another commit than the one recorded is a FATAL_ERROR. A source
# that is not a git checkout is accepted as is (the run pipeline decides).
function(rb_check_kernel_commit dir)
  execute_process(COMMAND git -C "${dir}" rev-parse HEAD
    OUTPUT_VARIABLE _rb_head OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rb_git_rc ERROR_QUIET)
  if(NOT _rb_git_rc EQUAL 0)
    return()
  endif()
  if(RB_KERNEL_COMMIT STREQUAL "n/a")
    string(SUBSTRING "${_rb_head}" 0 8 _rb_short)
    set(RB_KERNEL_COMMIT "${_rb_short}" PARENT_SCOPE)
  elseif(NOT _rb_head MATCHES "^${RB_KERNEL_COMMIT}")
    message(FATAL_ERROR "RB_PORT=${RB_PORT}: RB_KERNEL_COMMIT='${RB_KERNEL_COMMIT}' but the checkout "
      "'${dir}' is at ${_rb_head}")
  endif()
endfunction()

# rb_adopt_kernel_version(<version read from the checkout> <what the checkout is>):
# for kernel ports. RB_KERNEL_VERSION "n/a" becomes <version> (echoed in
# CONFIG); any other RB_KERNEL_VERSION must equal it, or the build stops with
# a FATAL_ERROR naming the checkout (<what>, e.g. "'<dir>' is FreeRTOS 10.5.1
# (include/task.h)").
function(rb_adopt_kernel_version version what)
  if(RB_KERNEL_VERSION STREQUAL "n/a")
    set(RB_KERNEL_VERSION "${version}" PARENT_SCOPE)
  elseif(NOT RB_KERNEL_VERSION STREQUAL version)
    message(FATAL_ERROR "RB_PORT=${RB_PORT}: RB_KERNEL_VERSION='${RB_KERNEL_VERSION}' but the checkout "
      "${what}")
  endif()
endfunction()
