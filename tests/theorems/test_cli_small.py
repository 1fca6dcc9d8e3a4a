"""The command line's small edges: each reproduced as a user met it, then pinned."""
import json

from theorems.cli import main


def test_calibration_is_an_analogue_in_list_and_report(capsys):
    from theorems.core import RELATIONS
    from theorems.report import model
    from theorems.cli import claims_registered
    assert main(["list", "--json"]) == 0
    rows = {r["claim"]: r for r in json.loads(capsys.readouterr().out)["claims"]}
    relation = rows["softmax_rank.calibration"]["relation"]
    assert relation == "an analogue, not the paper's data" and relation in RELATIONS
    claim = claims_registered()["softmax_rank.calibration"]
    # the report keeps its wording, which names the data, and groups it with the analogues
    assert model.relation_of(claim) == ("an analogue on all-MiniLM-L6-v2 (72 heads, BERT architecture), "
                                        "not the paper's BERT-base set")
    assert model.role_of(claim) == "analogue"
