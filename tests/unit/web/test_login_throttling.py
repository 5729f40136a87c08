"""Login throttling (django-axes): a handful of failures locks the address and the user name."""

import pytest
from axes.models import AccessAttempt
from django.urls import reverse

from tests.factories import TEST_PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def log_in(client, username: str, password: str, address: str = "203.0.113.7"):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_after_the_failure_limit_even_the_right_password_is_refused_with_a_clear_message(client, settings):
    user = UserFactory()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, user.username, "wrong").status_code == 200  # the form again, with its error
    locked = log_in(client, user.username, "wrong")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed logins" in page and "Try again in 15 minutes" in page
    refused = log_in(client, user.username, TEST_PASSWORD)
    assert refused.status_code == 429 and "_auth_user_id" not in client.session


def test_the_lock_holds_for_the_user_name_from_another_address_and_for_the_address_with_another_name(client):
    target, bystander = UserFactory(), UserFactory()
    for _ in range(5):
        log_in(client, target.username, "wrong", address="203.0.113.7")
    assert log_in(client, target.username, TEST_PASSWORD, address="198.51.100.1").status_code == 429
    assert log_in(client, bystander.username, TEST_PASSWORD, address="203.0.113.7").status_code == 429
    fresh = log_in(client, bystander.username, TEST_PASSWORD, address="198.51.100.2")
    assert fresh.status_code == 302 and client.session["_auth_user_id"] == str(bystander.pk)


def test_the_lock_ends_after_the_cool_off_and_a_success_clears_the_count(client, settings):
    user = UserFactory()
    for _ in range(5):
        log_in(client, user.username, "wrong")
    assert log_in(client, user.username, TEST_PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.get().attempt_time - settings.AXES_COOLOFF_TIME)
    assert log_in(client, user.username, TEST_PASSWORD).status_code == 302
    assert not AccessAttempt.objects.exists(), "a successful login resets the failures"
