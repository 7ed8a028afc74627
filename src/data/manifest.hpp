// DATAROOT/MANIFEST.json: what each dataset under a data root is (real,
// synthetic), who made it and when. Reports show it; results carry it.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace milabench {

// Merges `entry` (e.g. {"synthetic": true, "generator": "milarun", "scale": 0.1,
// "files": 4}) under key `name` in DATAROOT/MANIFEST.json, adding
// "created" (UTC ISO time). Other keys are kept. Atomic (temp + rename).
// Throws std::runtime_error naming the file on failure.
void record_manifest(const std::string& dataroot, const std::string& name, nlohmann::json entry);

// Provenance of dataset `name` for result files: {"name", "path", "synthetic":
// true|false|"unknown", and the manifest entry's other keys}. "unknown" when
// the manifest is missing, unreadable or has no entry for `name`. Data
// generated here for a dataset the original downloads (the dataset table
// lists files for it) adds "stand_in": "generated_data"
// (results/stand_ins.hpp); data the original generated too (fake_imagenet)
// does not.
nlohmann::json dataset_provenance(const std::string& dataroot, const std::string& name);

}  // namespace milabench
