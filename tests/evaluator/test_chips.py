from django.core.management import call_command

from evaluator.chips import CHIPS
from evaluator.models import Chip

EXPECTED_SLUGS = {
    "h200",
    "h100",
    "a100",
    "mi300x",
    "ascend-910b",
    "mtt-s4000",
    "mtt-s5000",
    "hygon-bw1000",
    "iluvatar-bi-v150",
    "metax-c550",
    "cpu",
}


def test_registry_lists_the_required_platforms_with_sources():
    assert {row["slug"] for row in CHIPS} == EXPECTED_SLUGS
    for row in CHIPS:
        assert row["sources"], row["slug"]
        assert row["device_type"] in {"cuda", "npu", "musa", "cpu"}
        if row["peak_bandwidth_gbs"] is None and row["slug"] != "cpu":
            # a missing figure must be explained, not silently absent
            assert "null" in row["sources"], row["slug"]


def test_device_types_follow_the_torch_builds():
    by_slug = {row["slug"]: row for row in CHIPS}
    assert by_slug["mi300x"]["device_type"] == "cuda"
    assert by_slug["ascend-910b"]["device_type"] == "npu"
    assert by_slug["mtt-s4000"]["device_type"] == "musa"
    assert by_slug["cpu"]["timing_meaningful"] is False


def test_seed_chips_is_idempotent_and_keeps_h200_measurements(db):
    call_command("seed_chips")
    Chip.objects.filter(slug="h100").update(peak_bandwidth_gbs=1.0)
    call_command("seed_chips")
    assert Chip.objects.count() == len(CHIPS)
    assert Chip.objects.get(slug="h100").peak_bandwidth_gbs == 3350.0
    h200 = Chip.objects.get(slug="h200")
    assert h200.measured_bandwidth_gbs == 4400.0
    assert h200.measured_tflops["bfloat16"] == 716.0
    assert h200.measured["sm_count"] == 132
    assert h200.queue_name == "chip.h200"
