# CMake functions for ahead-of-time Loom pipelines, installed with the package (and used in
# the source tree):
#
#   loom_add_generator(NAME SOURCES ...)
#       An executable NAME: the given files (which define and register Generators) linked with
#       Loom and the generator driver.
#
#   loom_add_library(NAME GENERATOR gen [FROM exe] [FUNCTION_NAME fn] [TARGETS t ...]
#                    [AUTOSCHEDULER scheduler] [PARAMS k=v ...])
#       Runs Generator `gen` of executable `exe` (default: the target named `gen`) at build time
#       and gives a target NAME to link: it carries fn.a (pipeline + runtime), the include
#       folder of fn.h, and -lm and pthreads. FUNCTION_NAME defaults to NAME; TARGETS defaults
#       to host (several make a multi-target library, most capable first). AUTOSCHEDULER
#       auto-schedules the pipeline with that scheduler (Heuristic: Loom's default) after the
#       Generator's schedule(), and writes fn.schedule.h beside fn.h: the schedule as C++
#       (apply_schedule_fn) to read, or to apply to the same algorithm in a JIT program.
include_guard(GLOBAL)

function(loom_add_generator NAME)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  add_executable(${NAME} ${ARG_SOURCES})
  target_link_libraries(${NAME} PRIVATE Loom::loom Loom::loom_generator_main)
endfunction()

function(loom_add_library NAME)
  cmake_parse_arguments(ARG "" "GENERATOR;FROM;FUNCTION_NAME;AUTOSCHEDULER" "TARGETS;PARAMS"
                        ${ARGN})
  if(NOT ARG_GENERATOR)
    message(FATAL_ERROR "loom_add_library(${NAME}): GENERATOR is required")
  endif()
  if(NOT ARG_FROM)
    set(ARG_FROM ${ARG_GENERATOR})
  endif()
  if(NOT TARGET ${ARG_FROM})
    message(FATAL_ERROR "loom_add_library(${NAME}): no executable target ${ARG_FROM}; create "
                        "it with loom_add_generator(${ARG_FROM} SOURCES ...) or pass FROM")
  endif()
  if(NOT ARG_FUNCTION_NAME)
    set(ARG_FUNCTION_NAME ${NAME})
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS host)
  endif()
  list(JOIN ARG_TARGETS "," targets)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${NAME}.loom)
  set(lib ${dir}/${ARG_FUNCTION_NAME}.a)
  set(header ${dir}/${ARG_FUNCTION_NAME}.h)
  set(outputs ${lib} ${header})
  set(schedule_args)
  if(ARG_AUTOSCHEDULER)
    list(APPEND outputs ${dir}/${ARG_FUNCTION_NAME}.schedule.h)
    set(schedule_args -s ${ARG_AUTOSCHEDULER} -e static_library,h,schedule auto_schedule=true)
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${ARG_FROM} -g ${ARG_GENERATOR} -o ${dir} -f ${ARG_FUNCTION_NAME} ${schedule_args}
            target=${targets} ${ARG_PARAMS}
    DEPENDS ${ARG_FROM}
    COMMENT "Generating ${ARG_FUNCTION_NAME}.a from Generator ${ARG_GENERATOR}"
    VERBATIM)
  add_custom_target(${NAME}_generate DEPENDS ${outputs})
  find_package(Threads REQUIRED)
  add_library(${NAME} INTERFACE)
  add_dependencies(${NAME} ${NAME}_generate)
  target_include_directories(${NAME} INTERFACE ${dir})
  target_link_libraries(${NAME} INTERFACE ${lib} Threads::Threads m)
endfunction()
