# --- dsanalyze order: a whole-dataset training order (training_order.h) ---------
target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/bucket_shuffle.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/sorted_ids.cc
  ${CMAKE_CURRENT_LIST_DIR}/training_order.cc)
# --- end of dsanalyze order ------------------------------------------------------
