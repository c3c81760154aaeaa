"""A short Cutoff API client: create a course and a problem set, publish it, submit an
answer as a student, and read the grades.

Get tokens with ``python manage.py create_account --username ines --role instructor
--course intro`` and ``python manage.py create_account --username sara --role student
--course intro``; each prints the account's token (an instructor may enrol, by name, only
students already in one of their courses). ``scripts/run``'s demo accounts do as well. Then::

    python docs/api-client-example.py --base-url http://127.0.0.1:8000 \\
        --instructor-token <token> --student-token <token> --student-username sara

People authenticate with ``Authorization: Token <key>``. An LMS can instead use an API
client token (``Authorization: Token cutoff_...``, created at /api/v1/api-clients/create/;
``Bearer cutoff_...`` works too) on the endpoints that accept its scopes. Errors always come
back as ``{"error": {"code", "message", "details"}}`` with a 4xx status.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from typing import Any

import requests


class Cutoff:
    """A thin wrapper over the REST API for one account."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        """Send a request and stop with the API's error message on a 4xx or 5xx."""
        response = self.session.request(method, self.base_url + path, timeout=30, **kwargs)
        if response.status_code >= 400:
            error = response.json().get("error", {}) if response.content else {}
            sys.exit(f"{method} {path}: {response.status_code} {error.get('message', '')}")
        return response

    def wait_for(self, path: str, field: str, done: set[str], timeout: float = 120) -> dict:
        """Poll ``path`` until ``field`` reaches one of ``done``; return the last body."""
        deadline = time.monotonic() + timeout
        while True:
            body = self.call("GET", path).json()
            if body[field] in done or time.monotonic() > deadline:
                return body
            time.sleep(0.5)


def minimax(node: dict[str, Any], maximizing: bool) -> float:
    """Return the minimax value of a ``gametree/1`` node (for the demo answer)."""
    if "children" not in node:
        return node["value"]
    values = [minimax(child, not maximizing) for child in node["children"]]
    return max(values) if maximizing else min(values)


def main() -> None:
    """Walk create course → problem set → publish → submit → read grades."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--instructor-token", required=True)
    parser.add_argument("--student-token", required=True)
    parser.add_argument("--student-username", required=True)
    args = parser.parse_args()
    teacher = Cutoff(args.base_url, args.instructor_token)
    student = Cutoff(args.base_url, args.student_token)

    slug = f"demo-{uuid.uuid4().hex[:8]}"
    course = teacher.call("POST", "/api/v1/courses/", json={"slug": slug, "title": "Demo"}).json()
    enrolment = teacher.call(
        "POST",
        f"/api/v1/courses/{course['id']}/enrollments/",
        json={"usernames": [args.student_username]},
    ).json()
    if enrolment["not_enrolled"]:
        sys.exit(f"{args.student_username}: {enrolment['not_enrolled'][0]['reason']}")
    print(f"course {course['id']} ({slug}) with {args.student_username} enrolled")

    problem_set = teacher.call(
        "POST",
        "/api/v1/problem-sets/",
        json={
            "course": course["id"],
            "title": "Minimax warm-up",
            "seed": "demo",
            "items": [{"kind": "minimax", "params": {"depth": 2, "ask_nodes": 0}, "points": "2"}],
        },
    ).json()
    teacher.call("POST", f"/api/v1/problem-sets/{problem_set['id']}/publish/")
    ready = teacher.wait_for(
        f"/api/v1/problem-sets/{problem_set['id']}/", "status", {"ready", "failed"}
    )
    print(f"problem set {problem_set['id']} is {ready['status']}")
    if ready["status"] != "ready":
        sys.exit("generation did not finish")

    assignment = next(
        a
        for a in student.call("GET", "/api/v1/assignments/").json()
        if a["problem_set"] == problem_set["id"]
    )
    detail = student.call("GET", f"/api/v1/assignments/{assignment['id']}/").json()
    item = detail["items"][0]
    tree = item["problem"]["tree"]
    maximizing = tree["type"] == "max"
    value = minimax(tree, maximizing)
    pick = max if maximizing else min
    move = pick(tree["children"], key=lambda child: minimax(child, not maximizing))["name"]
    # ?wait=10: the answer is stored first, then the reply is held until it is graded.
    submission = student.call(
        "POST",
        f"/api/v1/assignments/{assignment['id']}/items/{item['position']}/submissions/?wait=10",
        json={"answer": {"value": value, "move": move}},
        headers={"Idempotency-Key": str(uuid.uuid4())},
    ).json()
    finished = {"graded", "error"}
    graded = submission if submission["status"] in finished else student.wait_for(
        f"/api/v1/submissions/{submission['id']}/?wait=10", "status", finished
    )
    score = f"{graded['score']}/{graded['max_score']}"
    print(f"submission {submission['id']}: {graded['status']}, {score}")

    grades = teacher.call("GET", f"/api/v1/problem-sets/{problem_set['id']}/grades.csv")
    print(grades.text.strip())


if __name__ == "__main__":
    main()
