# The example configuration installed as /etc/cloudsm/cloudsmd.conf, made at build time by the
# built cloudsmd itself, so that it holds every key with its meaning and default as the key
# registry (src/sm/sm_config.c) has them; the one setting it makes is routing_engine ftree
# (cloudsm's engine for fat-trees; the built-in default is OpenSM's minhop).
#
#   cmake -DCLOUDSMD=path/cloudsmd -DOUT=file -P example_config.cmake
foreach(var CLOUDSMD OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "example_config.cmake: -D${var}=... is missing")
  endif()
endforeach()
execute_process(COMMAND "${CLOUDSMD}" --routing-engine ftree --dump-config
                OUTPUT_VARIABLE config RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "example_config.cmake: cloudsmd --dump-config failed (${rc})")
endif()
file(WRITE "${OUT}"
     "# /etc/cloudsm/cloudsmd.conf: the configuration cloudsmd.service runs with\n"
     "# (man 5 cloudsmd.conf). Every key is here at its default, but routing_engine: ftree\n"
     "# routes fat-trees (and falls back to minhop on other fabrics); without the key cloudsmd\n"
     "# uses minhop, as OpenSM does. After a change: systemctl reload cloudsmd.\n"
     "#\n"
     "${config}")
