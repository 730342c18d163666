// The Kineto importer's reading of trace-event JSON: a field of an object, numbers as integers,
// element sizes of dtypes, tensor sizes from "Input Dims", and the names and peers of
// collectives (internal to format/import/kineto/).
#pragma once
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tt::kineto {

using json = nlohmann::json;

// A member of a JSON object, or null.
const json& Field(const json& o, const char* key);
// A member that is a string, else "".
std::string FieldStr(const json& o, const char* key);
// A number as an integer (a finite float rounded), else `dflt`.
int64_t JsonInt(const json& v, int64_t dflt = -1);

// Bytes of one element: record_param_comms' dtype names ("Float") and Kineto's input types
// (C++ names: "float", "long int", "c10::BFloat16"); 0 when unknown.
size_t DtypeBytes(std::string_view t);
// The bytes of an op's tensor inputs, from Kineto's "Input Dims" and "Input type" (0 when an
// input's element size is unknown).
int64_t InputBytes(const json& dims, const json& types);
// The elements of an op's first tensor input, or of the tensors of its first TensorList input
// (c10d's ops take one: [[[2212]]]); -1 when unknown.
int64_t Nelems(const json& dims);
// The first of "Input type", else "".
std::string FirstType(const json& types);

// v.dump(), with nlohmann's serializer only where the value needs it (the shapes and types of
// an op's inputs, arrays of integers and plain strings, are written directly).
std::string DumpJson(const json& v);

// c10d's send and recv_ take (tensors, group, peer, tag): the peer's rank in the group is their
// third input, which Kineto records as a string among "Concrete Inputs" ("1"); -1 otherwise.
int64_t PeerRank(std::string_view collective, const json& args);
// "c10d::allreduce_" and "gloo:all_reduce" -> "allreduce": one collective's two names.
std::string CollectiveKey(std::string_view name);

}  // namespace tt::kineto
