"""The MCP server through the official SDK's client: in-process, and as `python -m kgb mcp` over stdio."""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from kgb.mcp_server import build_server
from tests.kgb.fakes import CORRECT_ADD, ROOT, WRONG_ADD


def structured(result):
    assert not result.is_error, result.content
    if result.structured_content is not None:
        value = result.structured_content
        return value.get("result", value) if isinstance(value, dict) and set(value) == {"result"} else value
    return json.loads(result.content[0].text)


def test_tools_in_process(tmp_path):
    log = tmp_path / "verify.jsonl"
    server = build_server(device="cpu", log_path=log)
    kernel = tmp_path / "aten__add.py"
    kernel.write_text(WRONG_ADD)

    async def session():
        async with Client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"list_operators", "get_prompt", "verify_kernel", "submit"}
            operators = structured(await client.call_tool("list_operators", {"source": "cublas"}))
            assert len(operators) == 50 and operators[0]["id"].startswith("cublas::")
            prompt = await client.call_tool("get_prompt", {"operator": "aten::add", "chip_family": "cpu"})
            assert "# Task: write a Triton kernel for `aten::add`" in prompt.content[0].text
            good = structured(await client.call_tool("verify_kernel", {"operator": "aten::add", "source": CORRECT_ADD}))
            bad = structured(await client.call_tool("verify_kernel", {"operator": "aten::add", "path": str(kernel)}))
            unknown = await client.call_tool("verify_kernel", {"operator": "aten::addd", "source": CORRECT_ADD})
            remote = await client.call_tool("verify_kernel", {"operator": "aten::add", "source": "x", "mode": "remote"})
            return good, bad, unknown, remote

    try:
        good, bad, unknown, remote = asyncio.run(session())
    finally:
        server.kgb_tools.close()
    assert good["verdict"] == "correct" and good["seed_kind"] == "public" and good["verify_calls"] == 1
    assert bad["verdict"] == "incorrect" and "failing case" in bad["feedback"] and bad["verify_calls"] == 2
    assert unknown.is_error and "unknown operator: aten::addd" in unknown.content[0].text
    assert remote.is_error and "--site" in remote.content[0].text
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["operator"], line["verdict"]) for line in lines] == [
        ("aten::add", "correct"),
        ("aten::add", "incorrect"),
    ]


def test_stdio_transport():
    params = StdioServerParameters(command=sys.executable, args=["-m", "kgb", "mcp"], cwd=str(ROOT))

    async def session():
        async with Client(params) as client:
            tools = await client.list_tools()
            listed = structured(await client.call_tool("list_operators", {"source": "vllm13"}))
            return tools, listed

    tools, listed = asyncio.run(session())
    assert {t.name for t in tools.tools} >= {"verify_kernel", "submit"}
    assert len(listed) == 50 and all(op["source"] == "vllm13" for op in listed)
