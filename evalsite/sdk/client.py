"""A thin client of the REST API, after Deepchecks' `log_interaction` / `log_batch_interactions`.

from evalsite.client import Client
client = Client("http://127.0.0.1:8000", token="evs_...")
run = client.create_run(client.create_project("Support bot", template="chat")["id"], "v1")
client.log_interaction(run["id"], input="Hi", output="Hello!")
"""

from __future__ import annotations

import time
from typing import Any

import httpx

DEFAULT_BATCH = 500


class EvalsiteAPIError(Exception):
    def __init__(self, status_code: int, detail: Any) -> None:
        super().__init__(f"{status_code}: {detail}")
        self.status_code = status_code
        self.detail = detail


class Client:
    def __init__(self, base_url: str, token: str, timeout: float = 30.0, batch_size: int = DEFAULT_BATCH) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        self.http = httpx.Client(base_url=base_url.rstrip("/") + "/api", headers=headers, timeout=timeout)
        self.batch_size = batch_size

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        if response.is_error:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text
            raise EvalsiteAPIError(response.status_code, detail)
        return response.json()

    def create_project(
        self, name: str, description: str = "", properties: list[str] | None = None, template: str | None = None
    ) -> dict[str, Any]:
        """template: rag, summarisation, chat, structured or custom (the server's default when None); it
        picks the properties scored and the key ones, and `properties` replaces the scored ones."""
        body: dict[str, Any] = {"name": name, "description": description, "properties": properties}
        if template is not None:
            body["template"] = template
        return self._request("POST", "/projects", json=body)

    def projects(self) -> list[dict[str, Any]]:
        return self._request("GET", "/projects")

    def create_run(self, project_id: int, name: str, **fields: Any) -> dict[str, Any]:
        """fields: environment ("evaluation" or "production"), description, metadata."""
        return self._request("POST", f"/projects/{project_id}/runs", json={"name": name, **fields})

    def log_interaction(self, run_id: int, output: str, **fields: Any) -> dict[str, Any]:
        """One interaction: output plus any of input, information_retrieval, expected_output,
        user_interaction_id, full_prompt, history, annotation, metadata, started_at, finished_at."""
        return self.log_batch_interactions(run_id, [{"output": output, **fields}])

    def log_batch_interactions(
        self, run_id: int, interactions: list[dict[str, Any]], column_mapping: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Log rows in requests of `batch_size`; row numbers in the errors count from the first row."""
        total: dict[str, Any] = {"accepted": 0, "rejected": 0, "errors": []}
        for start in range(0, len(interactions), self.batch_size):
            body = {"interactions": interactions[start : start + self.batch_size], "column_mapping": column_mapping}
            result = self._request("POST", f"/runs/{run_id}/interactions", json=body)
            total["accepted"] += result["accepted"]
            total["rejected"] += result["rejected"]
            for error in result["errors"]:
                total["errors"].append({**error, "row": None if error["row"] is None else error["row"] + start})
        return total

    def score(self, run_id: int, properties: list[str] | None = None) -> dict[str, Any]:
        return self._request("POST", f"/runs/{run_id}/score", json={"properties": properties})

    def job(self, job_id: int) -> dict[str, Any]:
        return self._request("GET", f"/jobs/{job_id}")

    def wait_for_job(self, job_id: int, timeout: float = 600.0, poll: float = 1.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while (job := self.job(job_id))["status"] != "done":
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} is not done after {timeout} s: {job['percent']}%")
            time.sleep(poll)
        return job

    def interactions(
        self,
        run_id: int,
        filters: list[str] | tuple[str, ...] = (),
        annotation: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"filter": list(filters), "limit": limit, "offset": offset}
        if annotation:
            params["annotation"] = annotation
        return self._request("GET", f"/runs/{run_id}/interactions", params=params)

    def summary(self, run_id: int) -> dict[str, Any]:
        return self._request("GET", f"/runs/{run_id}/summary")
