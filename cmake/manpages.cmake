# The manual pages, made at build time from the one source there is: the help texts the binaries
# print. Run as a script (cmake -P) by the `manpages` target:
#
#   cmake -DCLOUDSM=path/cloudsm -DCLOUDSMD=path/cloudsmd -DOUT=dir -DVERSION=x.y.z -P manpages.cmake
#
# writes
#   OUT/man1/cloudsm.1               `cloudsm help`
#   OUT/man1/cloudsm-GROUP-NAME.1    `cloudsm GROUP NAME --help`, for every command `cloudsm help`
#                                    lists (cloudsm-route.1 for a group that is one command)
#   OUT/man8/cloudsmd.8              `cloudsmd --help` (a daemon: section 8, as opensm(8))
#   OUT/man5/cloudsmd.conf.5         the configuration file: `cloudsmd --dump-config`, every key
#                                    with its meaning and default, from the key registry
#
# A page is the help text verbatim (no-fill), cut in two: SYNOPSIS is its first paragraph (the
# usage lines), DESCRIPTION the rest; NAME comes from the command list. Turning a page back into
# text (tests/cli/man_pages.sh) gives the help text again, byte for byte.

foreach(var CLOUDSM CLOUDSMD OUT VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "manpages.cmake: -D${var}=... is missing")
  endif()
endforeach()

# run(VAR cmd args...): the command's standard output; its failure stops the build.
function(run var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "manpages.cmake: '${ARGN}' failed (${rc})")
  endif()
  set(${var} "${out}" PARENT_SCOPE)
endfunction()

# roff_text(VAR text): text that roff prints as it is, in a no-fill block: a backslash is
# written \e, and a line that starts with a period or an apostrophe (a request to roff) is
# protected by a zero-width \&.
function(roff_text var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

# page(FILE NAME SECTION SUMMARY HELP)
function(page file name section summary help)
  string(TOUPPER "${name}" title)
  # The synopsis: up to the first blank line.
  string(FIND "${help}" "\n\n" cut)
  if(cut EQUAL -1)
    set(synopsis "${help}")
    set(description "")
  else()
    string(SUBSTRING "${help}" 0 ${cut} synopsis)
    math(EXPR rest "${cut} + 2")
    string(SUBSTRING "${help}" ${rest} -1 description)
  endif()
  string(REGEX REPLACE "\n$" "" description "${description}")
  roff_text(synopsis "${synopsis}")
  roff_text(description "${description}")
  roff_text(summary "${summary}")
  # \- in NAME: what makewhatis/apropos read.
  set(text ".TH ${title} ${section} \"\" \"cloudsm ${VERSION}\" \"cloudsm manual\"\n")
  string(APPEND text ".SH NAME\n${name} \\- ${summary}\n")
  string(APPEND text ".SH SYNOPSIS\n.nf\n${synopsis}\n.fi\n")
  if(NOT description STREQUAL "")
    string(APPEND text ".SH DESCRIPTION\n.nf\n${description}\n.fi\n")
  endif()
  file(WRITE "${file}" "${text}")
endfunction()

file(REMOVE_RECURSE "${OUT}/man1" "${OUT}/man5" "${OUT}/man8")
file(MAKE_DIRECTORY "${OUT}/man1" "${OUT}/man5" "${OUT}/man8")

# cloudsm and each of its commands.
run(overview "${CLOUDSM}" help)
page("${OUT}/man1/cloudsm.1" cloudsm 1
     "routing toolkit and subnet manager for InfiniBand fabrics that carry HPC clouds"
     "${overview}")
# The command list: "  GROUP [NAME]   summary" lines, up to the blank line before help/version.
string(FIND "${overview}" "\n\n  help" end)
string(SUBSTRING "${overview}" 0 ${end} commands)
# A summary may hold ';', CMake's list separator: it travels as a token through the list.
string(REPLACE ";" "@SEMICOLON@" commands "${commands}")
string(REGEX MATCHALL "\n  [a-z]+( [a-z0-9-]+)?  +[^\n]*" lines "${commands}")
set(count 0)
foreach(line IN LISTS lines)
  string(REGEX MATCH "^\n  ([a-z]+)( ([a-z0-9-]+))?  +(.*)$" _ "${line}")
  set(group "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_3}")
  string(REPLACE "@SEMICOLON@" ";" summary "${CMAKE_MATCH_4}")
  if(name STREQUAL "")
    set(page_name "cloudsm-${group}")
    run(help "${CLOUDSM}" ${group} --help)
  else()
    set(page_name "cloudsm-${group}-${name}")
    run(help "${CLOUDSM}" ${group} ${name} --help)
  endif()
  page("${OUT}/man1/${page_name}.1" "${page_name}" 1 "${summary}" "${help}")
  math(EXPR count "${count} + 1")
endforeach()
if(count LESS 10)
  message(FATAL_ERROR "manpages.cmake: only ${count} commands found in `cloudsm help`")
endif()

# cloudsmd and its configuration file.
run(help "${CLOUDSMD}" --help)
page("${OUT}/man8/cloudsmd.8" cloudsmd 8 "the cloudsm InfiniBand subnet manager" "${help}")
run(config "${CLOUDSMD}" --dump-config)
string(CONCAT conf_help
       "/etc/cloudsm/cloudsmd.conf (cloudsmd -c FILE)\n"
       "\n"
       "cloudsmd's configuration file has OpenSM's opensm.conf syntax: one `key value` per\n"
       "line, `#` starts a comment anywhere, numbers are decimal or 0x hex, booleans TRUE or\n"
       "FALSE, and (null) leaves a string unset. Keys carry OpenSM's names wherever OpenSM has\n"
       "one, so an opensm.conf loads as it is: OpenSM keys cloudsm does not use are logged as\n"
       "warnings with FILE:LINE and otherwise ignored; a bad value for a key cloudsm uses stops\n"
       "cloudsmd with FILE:LINE. A flag on cloudsmd's command line wins over the file.\n"
       "\n"
       "Every key, with its meaning and its default, as `cloudsmd --dump-config` prints them:\n"
       "\n"
       "${config}")
page("${OUT}/man5/cloudsmd.conf.5" cloudsmd.conf 5 "cloudsmd's configuration file" "${conf_help}")
message(STATUS "manual pages: ${count} cloudsm commands, cloudsm, cloudsmd, cloudsmd.conf")
