from django.contrib.auth import views as auth_views
from django.urls import path

from leaderboard import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("leaderboard/multi-source/", views.multi_source, name="multi_source"),
    path("leaderboard/multi-chip/", views.multi_chip, name="multi_chip"),
    path("leaderboard/reported/", views.reported, name="reported"),
    path("operators/", views.operator_list, name="operator_list"),
    path("operators/<str:pk>/", views.operator_detail, name="operator_detail"),
    path("submissions/new/", views.submission_upload, name="submission_upload"),
    path("submissions/<uuid:pk>/", views.submission_detail, name="submission_detail"),
    path("submissions/<uuid:pk>/progress/", views.submission_progress, name="submission_progress"),
    path("submissions/<uuid:pk>/delete/", views.submission_delete, name="submission_delete"),
    path("submissions/<uuid:pk>/cancel/", views.submission_cancel, name="submission_cancel"),
    path("submissions/<uuid:pk>/retarget/", views.submission_retarget, name="submission_retarget"),
    path("attempts/<int:pk>/", views.attempt_detail, name="attempt_detail"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", views.account, name="account"),
    path("accounts/token/", views.token_rotate, name="token_rotate"),
    path("api/docs/", views.api_docs, name="api-docs"),
    path("docs/", views.doc_index, name="doc_index"),
    path("docs/<path:slug>/", views.doc_page, name="doc_page"),
    path("api/v1/leaderboard/", api.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("api/v1/submissions/", api.SubmissionListCreateApi.as_view(), name="api-submissions"),
    path("api/v1/submissions/<uuid:pk>/", api.SubmissionDetailApi.as_view(), name="api-submission"),
    path("api/v1/submissions/<uuid:pk>/progress/", api.SubmissionProgressApi.as_view(), name="api-submission-progress"),
    path("api/v1/attempts/<int:pk>/", api.AttemptDetailApi.as_view(), name="api-attempt"),
    path("api/v1/reported/", api.ReportedResultListApi.as_view(), name="api-reported"),
    path("api/v1/models/", api.RegisteredModelListApi.as_view(), name="api-models"),
    path("api/v1/scaffolds/", api.RegisteredScaffoldListApi.as_view(), name="api-scaffolds"),
    path("api/v1/operators/", api.OperatorListApi.as_view(), name="api-operators"),
    path("api/v1/chips/", api.ChipListApi.as_view(), name="api-chips"),
]
