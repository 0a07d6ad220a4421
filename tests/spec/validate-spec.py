"""validate-spec.py YNL_DIR SPEC SCHEMA: load SPEC with the kernel's YNL
library, which validates it against SCHEMA (jsonschema) and resolves every
reference; exit non-zero with the reason if it does not hold."""
import sys

sys.path.insert(0, sys.argv[1])
from lib import SpecFamily  # noqa: E402

family = SpecFamily(sys.argv[2], sys.argv[3])
print(f"{family.name}: {len(family.msgs)} operations, "
      f"{len(family.attr_sets)} attribute sets")
